// The stdio transport for MCP servers: each server leads its own process group, so stopping
// it stops what it started (an `npx` wrapper's node, a script's children), at once if it never
// finished starting. Messages are the SDK's newline-delimited JSON; a line past
// MAX_MESSAGE_BYTES stops the server.

import { type ChildProcess, spawn } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { withoutPtyMasters } from '../shell/index.js'

/** How long a closed server may take to exit after its stdin ended, then after SIGTERM. */
const GRACE_MS = 2000

/** The longest message line read from a server (the SDK's default, 10 MiB). */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024

/** Why a server that wrote a line past MAX_MESSAGE_BYTES was stopped. */
const TOO_LONG = `it wrote a line of over ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB to stdout, past what dsh reads, and was stopped`

export interface StdioServerParams {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd?: string
}

/** Sends `signal` to process group `pgid`; false when the group is empty (or gone). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * Signals the server's group, and the server itself while it has not exited: a child
 * signalled right after spawn may not have made its group yet (setsid runs in the child).
 */
function stop(child: ChildProcess, pgid: number, signal: NodeJS.Signals): void {
  signalGroup(pgid, signal)
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
}

/** Resolves once `child` exited or `ms` passed. */
function exited(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    timer.unref()
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

export class StdioProcessTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Set once the server answered initialize: only then is it given time to exit on its own. */
  initialized = false
  /** Why dsh stopped the server itself (one line), when it did: read once `onclose` ran. */
  failure: string | undefined
  readonly stderr = new PassThrough()
  private child: ChildProcess | undefined
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES })

  constructor(private readonly params: StdioServerParams) {}

  /** The server's pid, which is also its process group's id (from start on). */
  get pid(): number | null {
    return this.child?.pid ?? null
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the MCP stdio transport was already started')
    return new Promise((resolve, reject) => {
      // detached: the server leads a new process group (and session), apart from dsh's.
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: withoutPtyMasters(['pipe', 'pipe', 'pipe']),
        detached: true,
      })
      this.child = child
      child.on('error', (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on('spawn', () => resolve())
      child.on('close', () => {
        if (this.child === child) this.child = undefined
        this.onclose?.()
      })
      child.stdin!.on('error', (error) => this.onerror?.(error))
      child.stdout!.on('error', (error) => this.onerror?.(error))
      child.stdout!.on('data', (chunk: Buffer) => {
        if (this.failure !== undefined) return
        try {
          this.buffer.append(chunk)
        } catch {
          // Past MAX_MESSAGE_BYTES without a newline (the buffer is cleared): no message
          // can be read from this stream any more, so the server is stopped as crashed.
          this.fail(child, TOO_LONG)
          return
        }
        this.drain()
      })
      child.stderr!.pipe(this.stderr)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin) return Promise.reject(new Error('Not connected'))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', () => resolve())
    })
  }

  /**
   * Stops the server and its group: ends its stdin and waits for it to exit (a server that
   * never answered initialize is not waited for), then SIGTERM to the group, waits for the
   * leader, and SIGKILL to whatever of the group is left. (Members are not polled: in a
   * container whose init does not reap, an exited member lingers as a zombie.)
   */
  close(): Promise<void> {
    return this.terminate(this.initialized)
  }

  /** Stops a server that broke the protocol: no grace, its pending requests fail when it closes. */
  private fail(child: ChildProcess, reason: string): void {
    this.failure = reason
    this.buffer.clear()
    child.stdout?.destroy()
    void this.terminate(false)
  }

  private async terminate(grace: boolean): Promise<void> {
    const child = this.child
    this.child = undefined
    this.buffer.clear()
    const pgid = child?.pid
    if (!child || pgid === undefined) return
    try {
      child.stdin?.end()
    } catch {
      // Already closed.
    }
    if (grace) await exited(child, GRACE_MS)
    stop(child, pgid, 'SIGTERM')
    await exited(child, GRACE_MS)
    stop(child, pgid, 'SIGKILL')
    child.unref()
  }

  private drain(): void {
    while (true) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        this.onerror?.(error as Error)
        continue
      }
      if (message === null) return
      this.onmessage?.(message)
    }
  }
}
