// One running language server: its process group, the JSON-RPC connection over stdio, the
// documents it was sent and the diagnostics it published. The only module that imports the
// LSP libraries; the manager loads it with `await import()` the first time a server starts.

import { type ChildProcess, spawn } from 'node:child_process'
import {
  createProtocolConnection,
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  type ServerCapabilities,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node'
import { errorMessage } from '../core/errors.js'
import { processStartTicks, signalOwnGroup, withoutPtyMasters } from '../shell/index.js'
import { CLIENT_CAPABILITIES } from './capabilities.js'
import { uriOf } from './convert.js'
import { LspServerExitedError } from './errors.js'
import { killGroupOnExit } from './exit-kill.js'
import { FrameGuard } from './framing.js'
import { liveGroupMembers } from './group.js'
import type { LspLog, LspServerSpec } from './types.js'
import { delay, drained, formatMs, withTimeout } from './waits.js'

export interface StartOptions {
  readonly spec: LspServerSpec
  readonly root: string
  /** The child's whole environment (already scrubbed of secrets). */
  readonly env: Record<string, string>
  readonly initializeTimeoutMs: number
  readonly log: LspLog
  /** Arguments placed before the server command (the sandbox: `bwrap ... --`), empty for none. */
  readonly wrapper?: readonly string[]
  /**
   * Called once when the process ends without `shutdown()` having been asked for, with how
   * it ended (`exited with code 3; last stderr line: …`).
   */
  readonly onUnexpectedExit: (reason: string) => void
}

/** How long an exit waits for the rest of stderr, which often says why the server ended. */
const STDERR_DRAIN_MS = 200
/** The longest stderr line an exit reason quotes. */
const MAX_STDERR_LINE_CHARS = 200

interface Published {
  readonly version: number | undefined
  readonly items: readonly Diagnostic[]
  /** Increases with every publish over the whole connection, to tell new from old. */
  readonly seq: number
}

export class LspConnection {
  readonly pid: number
  capabilities: ServerCapabilities = {}
  private readonly versions = new Map<string, number>()
  private readonly texts = new Map<string, string>()
  private readonly published = new Map<string, Published>()
  private readonly listeners = new Set<() => void>()
  private seq = 0
  /**
   * Servers publish a change's diagnostics in passes (typescript-language-server: syntax,
   * semantics, suggestions). The publish counts of the last waits that ended by the quiet
   * window (complete observations), and the publishes per document since its last sync: once
   * three waits were observed, a wait ends at once when its change reached the most of them,
   * instead of waiting out the quiet window again.
   */
  private readonly observedPasses: number[] = []
  private readonly sinceSync = new Map<string, number>()
  private stopping = false
  private exited = false
  private lastStderrLine: string | undefined
  /** How the process ended, once it has (and its stderr was read to the end, bounded). */
  private exitReason: string | undefined
  private readonly exitPromise: Promise<void>
  private readonly forget: () => void
  private readonly leaderTicks: number | null

  private constructor(
    readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
    private readonly options: StartOptions,
  ) {
    this.pid = child.pid!
    this.leaderTicks = processStartTicks(this.pid)
    this.forget = killGroupOnExit(this.pid, this.leaderTicks)
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (!line.trim()) continue
        options.log.line(`stderr: ${line}`)
        this.lastStderrLine = line.trim().slice(0, MAX_STDERR_LINE_CHARS)
      }
    })
    this.exitPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exited = true
        const unexpected = !this.stopping
        this.connection.dispose()
        void drained(child.stderr!, STDERR_DRAIN_MS).then(() => {
          const how = signal ? `killed by ${signal}` : `exited with code ${code}`
          this.exitReason = this.lastStderrLine ? `${how}; last stderr line: ${this.lastStderrLine}` : how
          if (unexpected) options.onUnexpectedExit(this.exitReason)
          resolve()
        })
      })
    })
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.seq += 1
      this.published.set(params.uri, { version: params.version, items: params.diagnostics, seq: this.seq })
      this.sinceSync.set(params.uri, (this.sinceSync.get(params.uri) ?? 0) + 1)
      for (const listener of this.listeners) listener()
    })
    // Requests from the server that a client must answer; others get "method not found".
    connection.onRequest('workspace/configuration', (params: { items?: unknown[] } | undefined) =>
      (params?.items ?? []).map(() => null),
    )
    connection.onRequest('workspace/workspaceFolders', () => [{ uri: uriOf(options.root), name: 'root' }])
    for (const method of [
      'client/registerCapability',
      'client/unregisterCapability',
      'window/workDoneProgress/create',
    ])
      connection.onRequest(method, () => null)
    for (const method of ['window/logMessage', 'window/showMessage'])
      connection.onNotification(method, (params: { message?: string } | undefined) =>
        options.log.line(`${method}: ${params?.message ?? ''}`),
      )
    connection.onError(([error]) => options.log.line(`ignored malformed output: ${errorMessage(error)}`))
  }

  /** Spawns the server in its own process group and runs `initialize` within the timeout. */
  static async start(options: StartOptions): Promise<LspConnection> {
    const { spec, root } = options
    const [command, ...args] = [...(options.wrapper ?? []), spec.command, ...spec.args]
    const child = spawn(command!, args, {
      cwd: root,
      env: options.env,
      stdio: withoutPtyMasters(['pipe', 'pipe', 'pipe']),
      detached: true,
    })
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined))
      child.once('error', (error) => resolve(error))
    })
    if (spawned) throw spawned
    // A write to a server that died is reported through exit; the pipe error itself is noise.
    child.stdin!.on('error', () => {})
    const frames = child.stdout!.pipe(
      new FrameGuard((what) => options.log.line(`ignored malformed output: ${what}`)),
    )
    const connection = createProtocolConnection(
      new StreamMessageReader(frames),
      new StreamMessageWriter(child.stdin!),
    )
    const server = new LspConnection(child, connection, options)
    connection.listen()
    try {
      const result = await server.request<InitializeResult>(
        InitializeRequest.method,
        {
          processId: process.pid,
          clientInfo: { name: 'dsh' },
          rootUri: uriOf(root),
          rootPath: root,
          workspaceFolders: [{ uri: uriOf(root), name: 'root' }],
          capabilities: CLIENT_CAPABILITIES,
          initializationOptions: spec.initializationOptions ?? null,
        },
        options.initializeTimeoutMs,
      )
      server.capabilities = result.capabilities
      await connection.sendNotification(InitializedNotification.type, {})
    } catch (error) {
      await server.kill()
      throw error
    }
    return server
  }

  get alive(): boolean {
    return !this.exited
  }

  /** Resolves once the process has ended and, when unexpected, `onUnexpectedExit` has run. */
  get ended(): Promise<void> {
    return this.exitPromise
  }

  /** The document's current version (0 when never sent). */
  versionOf(path: string): number {
    return this.versions.get(uriOf(path)) ?? 0
  }

  isOpen(path: string): boolean {
    return this.versions.has(uriOf(path))
  }

  /** The text last sent for `path`; undefined when it was never sent. */
  textOf(path: string): string | undefined {
    return this.texts.get(uriOf(path))
  }

  /**
   * Sends `text` as the document's content (didOpen the first time, else a full didChange
   * with the next version); returns the publish counter before sending, for `waitForDiagnostics`.
   * Unchanged text sends nothing.
   */
  async sync(path: string, languageId: string, text: string): Promise<{ since: number; changed: boolean }> {
    const uri = uriOf(path)
    const since = this.seq
    const version = this.versions.get(uri)
    this.sinceSync.set(uri, 0)
    if (version === undefined) {
      this.versions.set(uri, 1)
      this.texts.set(uri, text)
      await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId, version: 1, text },
      })
      return { since, changed: true }
    }
    if (this.texts.get(uri) === text) return { since, changed: false }
    this.versions.set(uri, version + 1)
    this.texts.set(uri, text)
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: version + 1 },
      contentChanges: [{ text }],
    })
    return { since, changed: true }
  }

  /** The last diagnostics published for `path` (empty when none yet). */
  diagnosticsOf(path: string): readonly Diagnostic[] {
    return this.published.get(uriOf(path))?.items ?? []
  }

  /** Every file with published diagnostics (URIs as the server sent them). */
  publishedUris(): string[] {
    return [...this.published.keys()]
  }

  /** URIs published after counter `since`. */
  publishedSince(since: number): string[] {
    return [...this.published].filter(([, entry]) => entry.seq > since).map(([uri]) => uri)
  }

  /**
   * Resolves true once the server published diagnostics for `path` after counter `since`
   * (for the current version when the server names versions) and then nothing more for
   * `settleMs` (servers publish in passes: syntax, then semantics); false after `timeoutMs`
   * without any.
   */
  waitForDiagnostics(
    path: string,
    since: number,
    timeoutMs: number,
    settleMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const uri = uriOf(path)
    const fresh = () => {
      const entry = this.published.get(uri)
      if (!entry || entry.seq <= since) return undefined
      return entry.version === undefined || entry.version >= (this.versions.get(uri) ?? 0)
        ? entry.seq
        : undefined
    }
    return new Promise((resolve) => {
      let settleTimer: NodeJS.Timeout | undefined
      let lastSeq: number | undefined
      const finish = (value: boolean) => {
        clearTimeout(timer)
        clearTimeout(settleTimer)
        this.listeners.delete(check)
        signal?.removeEventListener('abort', abort)
        resolve(value)
      }
      const check = () => {
        const seq = fresh()
        if (seq === undefined || seq === lastSeq) return
        lastSeq = seq
        clearTimeout(settleTimer)
        const count = this.sinceSync.get(uri) ?? 0
        const learned = this.observedPasses.length >= 3 ? Math.max(...this.observedPasses) : undefined
        if (learned !== undefined && count >= learned) {
          finish(true)
          return
        }
        settleTimer = setTimeout(() => {
          this.observedPasses.push(count)
          if (this.observedPasses.length > 3) this.observedPasses.shift()
          finish(true)
        }, settleMs)
      }
      const abort = () => finish(lastSeq !== undefined)
      const timer = setTimeout(() => finish(lastSeq !== undefined), timeoutMs)
      this.listeners.add(check)
      signal?.addEventListener('abort', abort, { once: true })
      void this.exitPromise.then(() => finish(false))
      check()
    })
  }

  /**
   * Sends a request; rejects after `timeoutMs`, or with LspServerExitedError (saying how it
   * ended) when the server exits first.
   */
  async request<R>(method: string, params: unknown, timeoutMs: number): Promise<R> {
    const { id } = this.options.spec
    try {
      return await withTimeout(
        this.connection.sendRequest(method, params) as Promise<R>,
        timeoutMs,
        `${id} did not answer ${method} within ${formatMs(timeoutMs)}`,
        this.exitPromise,
      )
    } catch (error) {
      // An exit disposes the connection, whose pending requests then reject in the library's words.
      if (!this.exited) throw error
      await this.exitPromise
      throw new LspServerExitedError(id, this.exitReason ?? 'ended')
    }
  }

  /** shutdown, then exit, then the process group: each step bounded by `graceMs`. */
  async shutdown(graceMs = 2000): Promise<void> {
    this.stopping = true
    if (!this.exited) {
      try {
        await withTimeout(this.connection.sendRequest(ShutdownRequest.type), graceMs, 'shutdown timed out')
        await this.connection.sendNotification(ExitNotification.type)
        // A timer that holds the process open (a CLI's last await) and is cleared on exit.
        let timer: NodeJS.Timeout | undefined
        await Promise.race([
          this.exitPromise,
          new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
        ])
        clearTimeout(timer)
      } catch {
        // No answer or a broken pipe: the group kill below ends it either way.
      }
    }
    await this.kill()
  }

  /** SIGKILL to the whole group (the server and what it started, e.g. tsserver). */
  async kill(): Promise<void> {
    this.stopping = true
    signalOwnGroup(this.pid, this.leaderTicks, 'SIGKILL')
    await this.exitPromise
    // Helpers left without their leader are still in the group: signal once more, then
    // wait (bounded) until the kernel has ended them, so "stopped" means gone.
    signalOwnGroup(this.pid, this.leaderTicks, 'SIGKILL')
    for (let waited = 0; waited < 3000 && liveGroupMembers(this.pid).length > 0; waited += 20) await delay(20)
    this.forget()
  }
}
