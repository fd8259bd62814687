// The terminal service (`ctx.terminals`): starts terminals through the shell executor's
// launches (same environment, sandbox and containment as `bash`), numbers them per agent
// (`t1`, `t2`, …), caps how many run per session, tells front ends what they show, and
// kills an agent's terminals when the agent stops and every terminal when it unloads.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { type Context, Service } from 'cordis'
import { DshError, errorMessage } from '../core/errors.js'
import { closingPtyMasters, findExecutable, holdPtyMaster } from '../shell/index.js'
import { TerminalErrorCode } from './errors.js'
import {
  DEFAULT_MAX_READ_LINES,
  DEFAULT_MAX_TERMINALS_PER_SESSION,
  DEFAULT_SCROLLBACK_LINES,
  DEFAULT_TERMINAL_COLS,
  DEFAULT_TERMINAL_ROWS,
  MAX_TERMINAL_COLS,
  MAX_TERMINAL_ROWS,
} from './limits.js'
import { loadTerminalClass, Screen } from './screen.js'
import { TerminalSession } from './terminal.js'
import { Transcript } from './transcript.js'
import type { TerminalInfo, TerminalOwner, TerminalStartRequest } from './types.js'

export interface TerminalServiceConfig {
  /** Terminals one session may have running at once (config `terminals.maxPerSession`). Default 8. */
  maxPerSession?: number
  /** Lines of scrollback each screen keeps (config `terminals.scrollbackLines`). Default 1,000. */
  scrollbackLines?: number
  /** New scrollback lines one read returns at most; the rest is in the transcript file. Default 200. */
  maxReadLines?: number
  /** Transcript characters kept in memory before it spills to a file. Default 100,000. */
  transcriptChars?: number
  /** Time between TERM and KILL when a terminal is killed. Default 2,000 ms. */
  killGraceMs?: number
  /** Live views hear about a changing terminal at most this often. Default 100 ms. */
  liveIntervalMs?: number
}

type PtyModule = typeof import('@lydell/node-pty')
let ptyModule: Promise<PtyModule> | undefined

/** node-pty is native and only needed once a terminal starts: imported then, once. */
function loadPty(): Promise<PtyModule> {
  ptyModule ??= import('@lydell/node-pty').then(
    (module) => ((module as { default?: PtyModule }).default ?? module) as PtyModule,
  )
  return ptyModule
}

interface OwnerState {
  next: number
  terminals: Map<string, TerminalSession>
}

export class TerminalService extends Service {
  static inject = ['shell']
  private readonly owners = new Map<string | undefined, OwnerState>()
  private readonly config: Required<TerminalServiceConfig>
  private closed = false
  private privateDir: string | undefined
  private readonly liveTimers = new Map<TerminalSession, NodeJS.Timeout>()

  constructor(ctx: Context, config: TerminalServiceConfig = {}) {
    super(ctx, 'terminals')
    this.config = {
      maxPerSession: config.maxPerSession ?? DEFAULT_MAX_TERMINALS_PER_SESSION,
      scrollbackLines: config.scrollbackLines ?? DEFAULT_SCROLLBACK_LINES,
      maxReadLines: config.maxReadLines ?? DEFAULT_MAX_READ_LINES,
      transcriptChars: config.transcriptChars ?? 100_000,
      killGraceMs: config.killGraceMs ?? 2_000,
      liveIntervalMs: config.liveIntervalMs ?? 100,
    }
    ctx.on('agent/disposed', (agent) => this.killOwned(agent.id))
    ctx.effect(
      () => async () => {
        this.closed = true
        await Promise.allSettled([...this.owners.keys()].map((owner) => this.killOwned(owner)))
        if (this.privateDir) rmSync(this.privateDir, { recursive: true, force: true })
      },
      'terminals: kill every terminal on unload',
    )
  }

  get maxPerSession(): number {
    return this.config.maxPerSession
  }

  /**
   * Starts a terminal for `owner`. Rejects with TERMINAL_TOO_MANY past the cap, the
   * executor's errors when nothing could be prepared (bad workdir, sandbox unavailable),
   * TERMINAL_SPAWN_FAILED when the pseudo-terminal could not start.
   */
  async start(owner: TerminalOwner, request: TerminalStartRequest): Promise<TerminalSession> {
    if (this.closed) throw new DshError('the terminal service was unloaded', TerminalErrorCode.Closed)
    const state = this.stateOf(owner.agentId)
    const running = [...state.terminals.values()].filter((terminal) => terminal.running).length
    if (running >= this.config.maxPerSession) {
      throw new DshError(
        `too many terminals: this session already runs ${running} (the cap is ${this.config.maxPerSession}, config terminals.maxPerSession); kill one with terminal_kill first`,
        TerminalErrorCode.TooMany,
      )
    }
    const cols = request.cols ?? DEFAULT_TERMINAL_COLS
    const rows = request.rows ?? DEFAULT_TERMINAL_ROWS
    checkSize(cols, rows)
    const [pty, TerminalClass] = await Promise.all([loadPty(), loadTerminalClass()])
    const shell = this.ctx.get('shell')
    if (!shell) throw new DshError('no shell executor is loaded', TerminalErrorCode.Closed)
    const command = request.command.trim() === '' ? interactiveShell(shell.shellPath) : request.command
    // A real terminal: the executor's `TERM=dumb` would make programs refuse to draw.
    const launch = shell.prepare({
      ...request.shell,
      command,
      env: { ...request.shell.env, TERM: 'xterm-256color' },
    })
    let process: import('@lydell/node-pty').IPty
    // node-pty's fork passes the other terminals' masters on: a bash closes them first.
    const bash = basename(shell.shellPath) === 'bash' ? shell.shellPath : findExecutable('bash')
    const [file, args] = bash
      ? closingPtyMasters(bash, launch.file, launch.args)
      : [launch.file, [...launch.args]]
    try {
      process = pty.spawn(file, args, {
        name: 'xterm-256color',
        cols,
        rows,
        cwd: launch.cwd,
        env: { ...launch.env },
      })
    } catch (error) {
      launch.exited()
      launch.release()
      throw new DshError(`cannot start a terminal: ${errorMessage(error)}`, TerminalErrorCode.SpawnFailed, {
        cause: error,
      })
    }
    const id = `t${state.next++}`
    const spillPath = request.spillPath ?? (() => this.privateSpillPath(owner.agentId, id))
    const terminal: TerminalSession = new TerminalSession({
      id,
      agentId: owner.agentId,
      command: request.command,
      launch,
      pty: process,
      releaseMaster: holdMaster(process),
      screen: new Screen(TerminalClass, cols, rows, this.config.scrollbackLines),
      transcript: new Transcript(this.config.transcriptChars, spillPath),
      killGraceMs: this.config.killGraceMs,
      maxReadLines: this.config.maxReadLines,
      changed: () => this.changed(terminal),
    })
    state.terminals.set(id, terminal)
    this.ctx.emit('terminal/started', terminal.info())
    return terminal
  }

  /** The owner's terminal `id`, or undefined (another agent's terminal is unknown here). */
  get(owner: TerminalOwner, id: string): TerminalSession | undefined {
    return this.owners.get(owner.agentId)?.terminals.get(id)
  }

  /** The owner's terminals, or every terminal without an owner; oldest first. */
  list(owner?: TerminalOwner): TerminalInfo[] {
    const states = owner
      ? [this.owners.get(owner.agentId)].filter((state) => state !== undefined)
      : [...this.owners.values()]
    return states.flatMap((state) => [...state.terminals.values()].map((terminal) => terminal.info()))
  }

  /** Any terminal by agent and id (front ends: live views, read-only attach). */
  find(agentId: string | undefined, id: string): TerminalSession | undefined {
    return this.owners.get(agentId)?.terminals.get(id)
  }

  /** Kills the owner's terminal `id` with everything it started and forgets it; false when unknown. */
  async kill(owner: TerminalOwner, id: string): Promise<TerminalInfo | undefined> {
    const state = this.owners.get(owner.agentId)
    const terminal = state?.terminals.get(id)
    if (!state || !terminal) return undefined
    state.terminals.delete(id)
    await this.end(terminal)
    return terminal.info()
  }

  /** Kills every terminal of an agent (it stopped). */
  async killOwned(agentId: string | undefined): Promise<void> {
    const state = this.owners.get(agentId)
    if (!state) return
    this.owners.delete(agentId)
    await Promise.allSettled([...state.terminals.values()].map((terminal) => this.end(terminal)))
  }

  private async end(terminal: TerminalSession): Promise<void> {
    await terminal.kill()
    clearTimeout(this.liveTimers.get(terminal))
    this.liveTimers.delete(terminal)
    // `terminal_kill` answers once the full-output file it names holds everything.
    await terminal.dispose()
    this.ctx.emit('terminal/closed', terminal.info())
  }

  private stateOf(agentId: string | undefined): OwnerState {
    let state = this.owners.get(agentId)
    if (!state) {
      state = { next: 1, terminals: new Map() }
      this.owners.set(agentId, state)
    }
    return state
  }

  /** Front ends hear about a changing terminal at most every `liveIntervalMs`. */
  private changed(terminal: TerminalSession): void {
    if (this.liveTimers.has(terminal)) return
    const timer = setTimeout(() => {
      this.liveTimers.delete(terminal)
      this.ctx.emit('terminal/updated', terminal.info())
    }, this.config.liveIntervalMs)
    timer.unref()
    this.liveTimers.set(terminal, timer)
  }

  private privateSpillPath(agentId: string | undefined, id: string): string {
    this.privateDir ??= mkdtempSync(join(tmpdir(), 'dsh-terminal-'))
    const safe = (agentId ?? 'none').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)
    return join(this.privateDir, `${safe}-${id}-${Date.now()}.txt`)
  }
}

/** Notes the terminal's master descriptor, which children must not inherit (shell/pty-masters.ts). */
function holdMaster(pty: import('@lydell/node-pty').IPty): () => void {
  const fd = (pty as unknown as { _fd?: unknown })._fd
  return typeof fd === 'number' ? holdPtyMaster(fd) : () => {}
}

/** The user's login shell, interactive; the executor's shell when none is set. */
function interactiveShell(shellPath: string): string {
  return `exec "\${SHELL:-${shellPath}}" -i`
}

export function checkSize(cols: number, rows: number): void {
  const fits = (value: number, max: number) => Number.isInteger(value) && value >= 2 && value <= max
  if (!fits(cols, MAX_TERMINAL_COLS) || !fits(rows, MAX_TERMINAL_ROWS)) {
    throw new DshError(
      `terminal size must be 2-${MAX_TERMINAL_COLS} columns and 2-${MAX_TERMINAL_ROWS} rows, got ${cols}x${rows}`,
      TerminalErrorCode.BadSize,
    )
  }
}
