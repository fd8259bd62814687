// A child Node process spoken to in JSON lines: one command per stdin line, one reply
// per stdout line, in order; lines with an `event` field are notices, not replies.
// For tests that need a real second (third, ...) process: kill, SIGSTOP, SIGCONT.

import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

export interface LineReply {
  ok: boolean
  result?: unknown
  code?: string
  message?: string
}

export class LineChild {
  private readonly replies: ((reply: LineReply) => void)[] = []
  private readonly listeners: ((notice: Record<string, unknown>) => void)[] = []
  readonly exited: Promise<number | null>

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
  ) {
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)))
  }

  /** Runs `node script ...args`; resolves once the child printed its `{ready, pid}` line. */
  static async spawn(script: string, args: string[], env?: NodeJS.ProcessEnv): Promise<LineChild> {
    const child = spawn(process.execPath, [script, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: env ?? process.env,
    })
    const lines = createInterface({ input: child.stdout! })
    const first = await new Promise<{ pid: number }>((resolve, reject) => {
      lines.once('line', (line) => resolve(JSON.parse(line)))
      child.once('exit', (code) => reject(new Error(`child ${script} exited early with ${code}`)))
    })
    const handle = new LineChild(child, first.pid)
    lines.on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>
      if ('event' in message) for (const listener of handle.listeners) listener(message)
      else handle.replies.shift()?.(message as unknown as LineReply)
    })
    return handle
  }

  /** Sends a command; resolves with its reply. */
  call(op: string, args: Record<string, unknown> = {}): Promise<LineReply> {
    return new Promise((resolve) => {
      this.replies.push(resolve)
      this.child.stdin!.write(`${JSON.stringify({ op, ...args })}\n`)
    })
  }

  /** Calls and expects success. */
  async ok(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const reply = await this.call(op, args)
    if (!reply.ok) throw new Error(`child ${op} failed: ${reply.code} ${reply.message}`)
    return reply.result
  }

  /** Every notice line (`{ event: ... }`) the child prints from now on. */
  onNotice(listener: (notice: Record<string, unknown>) => void): void {
    this.listeners.push(listener)
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal)
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGCONT')
      this.child.kill('SIGKILL')
    }
    await this.exited
  }
}
