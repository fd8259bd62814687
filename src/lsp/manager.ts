// The server manager: one server per language and project root, started lazily the first
// time a file of its language is touched, restarted with backoff after a crash (at most
// `maxRestarts` times), shut down cleanly (shutdown, exit, process group) on stop.

import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { errorMessage } from '../core/errors.js'
import { buildChildEnv, DEFAULT_SECRET_FILTER, type SecretFilter } from '../shell/index.js'
import type { LspSettings } from './config.js'
import type { LspConnection } from './connection.js'
import { LspServerExitedError } from './errors.js'
import { extensionOf, findRoot, resolveCommand, serverFor } from './roots.js'
import type { LspLog, LspServerSpec, LspServerState, LspServerStatus } from './types.js'

export interface LspManagerOptions {
  readonly settings: LspSettings
  readonly specs: readonly LspServerSpec[]
  /** The harness home: server logs go to `<home>/logs/lsp/<id>.log`. None: no log. */
  readonly home?: string
  readonly secrets?: SecretFilter
  /** Builds the sandbox prefix (`bwrap ...`) for a server in `root`; absent: no sandbox. */
  readonly sandbox?: (root: string) => string[]
  /** Base delay before the first restart, doubled for each further one. Default 500 ms. */
  readonly restartBackoffMs?: number
  /**
   * Whether the project around `root` may run its own program `path` (a server found in its
   * node_modules/.bin) on the host: the project trust decision. Absent: it may not.
   */
  readonly projectTrusted?: (root: string, path: string) => Promise<boolean>
}

/** A server (or the lack of one) for a file, as tools and feedback use it. */
export type ServerLookup =
  | { readonly kind: 'ready'; readonly server: ServerEntry; readonly connection: LspConnection }
  /** Nothing to do for this file; `note` says why, `once` when it was already said. */
  | { readonly kind: 'none'; readonly note: string; readonly repeated: boolean }

interface ServerEntry {
  readonly spec: LspServerSpec
  readonly root: string
  readonly command: string
  state: LspServerState
  connection?: LspConnection
  starting?: Promise<LspConnection | undefined>
  restarts: number
  lastError?: string
  /** Said once with the next result from this server (a crash and restart). */
  notice?: string
}

export type { ServerEntry }

export class LspManager {
  private readonly entries = new Map<string, ServerEntry>()
  private readonly said = new Set<string>()
  private readonly logs = new Map<string, WriteStream>()
  private stopped = false

  constructor(private readonly options: LspManagerOptions) {}

  get specs(): readonly LspServerSpec[] {
    return this.options.specs
  }

  /** The running server for `path` (started now if needed), or why there is none. */
  async lookup(path: string, cwd: string): Promise<ServerLookup> {
    const spec = serverFor(this.options.specs, path)
    if (!spec) {
      const extension = extensionOf(path)
      return this.none(`no language server for ${extension ? `.${extension}` : 'files without an extension'}`)
    }
    const root = findRoot(path, spec.rootMarkers, cwd)
    const key = `${spec.id}\0${root}`
    let entry = this.entries.get(key)
    if (!entry) {
      const command = resolveCommand(spec.command, root)
      if (command === undefined) {
        const install = spec.install ? `; install it with: ${spec.install}` : ''
        return this.none(`${spec.id}: ${spec.command} is not installed${install}`)
      }
      // The project's own program is project content the model can write: on the host it
      // runs only in a trusted folder (under the sandbox it runs read-only, without network).
      if (command.fromProject && !this.options.sandbox && !(await this.mayRun(root, command.path)))
        return this.none(
          `${spec.id}: ${command.path} is the project's own program, and the folder is not trusted: it runs only in a trusted folder or under the sandbox (or install ${spec.command} on PATH)`,
        )
      entry = this.entries.get(key) // started by another lookup meanwhile
      if (!entry) {
        entry = { spec, root, command: command.path, state: 'starting', restarts: 0 }
        this.entries.set(key, entry)
        this.launch(entry, 0)
      }
    }
    let connection = entry.connection ?? (await entry.starting)
    if (connection && !connection.alive && entry.state === 'running') {
      // A crash is handled once its stderr was read (bounded): then the restart is under way.
      await connection.ended
      connection = entry.connection ?? (await entry.starting)
    }
    if (!connection?.alive || entry.state !== 'running') {
      const restarting = entry.state === 'starting' ? '; it is being restarted' : ''
      return this.none(
        `${spec.id} (${root}) is not available: ${entry.lastError ?? entry.state}${restarting}`,
      )
    }
    return { kind: 'ready', server: entry, connection }
  }

  /** The trust decision for the project's own program; false when it cannot be made (fail closed). */
  private async mayRun(root: string, path: string): Promise<boolean> {
    try {
      return (await this.options.projectTrusted?.(root, path)) === true
    } catch {
      return false
    }
  }

  /** Takes the entry's pending notice (a restart), if any. */
  takeNotice(entry: ServerEntry): string | undefined {
    const notice = entry.notice
    entry.notice = undefined
    return notice
  }

  /** Every running connection (for project-wide diagnostics). */
  running(): { server: ServerEntry; connection: LspConnection }[] {
    return [...this.entries.values()].flatMap((server) =>
      server.connection?.alive && server.state === 'running'
        ? [{ server, connection: server.connection }]
        : [],
    )
  }

  status(): LspServerStatus[] {
    return [...this.entries.values()].map((entry) => ({
      id: entry.spec.id,
      root: entry.root,
      state: entry.state,
      command: entry.command,
      ...(entry.connection?.alive ? { pid: entry.connection.pid } : {}),
      restarts: entry.restarts,
      ...(entry.lastError !== undefined ? { lastError: entry.lastError } : {}),
    }))
  }

  /** Shuts every server down (shutdown, exit, then the process group); later lookups start nothing. */
  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all(
      [...this.entries.values()].map(async (entry) => {
        const connection = entry.connection ?? (await entry.starting?.catch(() => undefined))
        entry.state = 'stopped'
        await connection?.shutdown()
      }),
    )
    for (const stream of this.logs.values()) stream.end()
    this.logs.clear()
  }

  private none(note: string): ServerLookup {
    const repeated = this.said.has(note)
    this.said.add(note)
    return { kind: 'none', note, repeated }
  }

  /** Starts the entry's server after `delayMs` (a restart's backoff); `entry.starting` is the attempt. */
  private launch(entry: ServerEntry, delayMs: number): void {
    entry.state = 'starting'
    const wait =
      delayMs > 0 ? new Promise<void>((resolve) => setTimeout(resolve, delayMs)) : Promise.resolve()
    const attempt = wait.then(() => {
      if (!this.stopped) return this.start(entry)
      entry.state = 'stopped'
      return undefined
    })
    entry.starting = attempt
    // A crash during initialize launched the next attempt already; that one stays.
    void attempt.then(() => {
      if (entry.starting === attempt) entry.starting = undefined
    })
  }

  private async start(entry: ServerEntry): Promise<LspConnection | undefined> {
    const { settings } = this.options
    const log = this.logFor(entry.spec.id)
    log.line(`starting ${entry.command} ${entry.spec.args.join(' ')} in ${entry.root}`)
    try {
      // Lazy: the LSP libraries load with the first server, never at harness start.
      const { LspConnection } = await import('./connection.js')
      const connection = await LspConnection.start({
        spec: { ...entry.spec, command: entry.command },
        root: entry.root,
        env: buildChildEnv(process.env, entry.spec.env, {}, this.options.secrets ?? DEFAULT_SECRET_FILTER),
        initializeTimeoutMs: settings.initializeTimeoutMs,
        log,
        ...(this.options.sandbox ? { wrapper: this.options.sandbox(entry.root) } : {}),
        // Only a server that was running: one that ends during initialize is handled below.
        onUnexpectedExit: (reason) => {
          if (entry.state === 'running') this.crashed(entry, reason, 'crashed')
        },
      })
      if (this.stopped) {
        await connection.shutdown()
        return undefined
      }
      entry.connection = connection
      entry.state = 'running'
      return connection
    } catch (error) {
      // A process that ended during initialize crashed, as one that ends later does; a
      // timeout or a failed spawn is given up on.
      if (error instanceof LspServerExitedError) {
        this.crashed(entry, error.reason, 'crashed during initialize')
        return undefined
      }
      entry.state = 'failed'
      entry.lastError = errorMessage(error)
      log.line(`failed: ${entry.lastError}`)
      return undefined
    }
  }

  /** A crash (`what`: `crashed`, `crashed during initialize`): restarted after a backoff, or given up on. */
  private crashed(entry: ServerEntry, reason: string, what: string): void {
    if (this.stopped) return
    entry.connection = undefined
    const crash = `${what} (${reason})`
    this.logFor(entry.spec.id).line(crash)
    const { maxRestarts } = this.options.settings
    if (entry.restarts >= maxRestarts) {
      entry.state = 'failed'
      entry.lastError = `${crash}; gave up after ${entry.restarts} restarts`
      return
    }
    entry.restarts += 1
    entry.lastError = crash
    entry.notice = `${entry.spec.id} ${crash} and was restarted (${entry.restarts} of at most ${maxRestarts})`
    this.launch(entry, (this.options.restartBackoffMs ?? 500) * 2 ** (entry.restarts - 1))
  }

  private logFor(id: string): LspLog {
    const home = this.options.home
    if (home === undefined) return { line: () => {} }
    let stream = this.logs.get(id)
    if (!stream) {
      const folder = join(home, 'logs', 'lsp')
      mkdirSync(folder, { recursive: true, mode: 0o700 })
      stream = createWriteStream(join(folder, `${id.replace(/[^\w.-]/g, '_')}.log`), {
        flags: 'a',
        mode: 0o600,
      })
      stream.on('error', () => {}) // A full disk must not break code intelligence.
      this.logs.set(id, stream)
    }
    const target = stream
    return { line: (text) => target.write(`${new Date().toISOString()} ${text}\n`) }
  }
}
