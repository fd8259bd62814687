// One terminal: a program in a pseudo-terminal (node-pty), its emulated screen, a plain-text
// transcript spilled to a file past a bound, waits for quiet or for a pattern, and the end of
// everything it started (through the executor's containment, never a bare group kill).

import { constants } from 'node:os'
import type { IPty } from '@lydell/node-pty'
import type { ShellLaunch } from '../shell/index.js'
import { ScreenFeed } from './feed.js'
import { compilePattern } from './pattern.js'
import { keepLastOutput } from './pty-drain.js'
import { RecentText } from './recent.js'
import type { Screen } from './screen.js'
import { isShell, readsKeysAtOnce, shellWaits, withoutPrompts } from './shells.js'
import type { Transcript } from './transcript.js'
import { EMPTY_LINE, type LineState, typedElsewhere, typeInto } from './typed-line.js'
import type { ReadOutcome, TerminalInfo, TerminalReading, TerminalReadOptions } from './types.js'

export interface TerminalParts {
  id: string
  agentId: string | undefined
  command: string
  launch: ShellLaunch
  pty: IPty
  /** Forgets the terminal's master descriptor among those children must not inherit. */
  releaseMaster: () => void
  screen: Screen
  transcript: Transcript
  killGraceMs: number
  /** Most new scrollback lines a reading carries. */
  maxReadLines: number
  /** Called (throttled by the caller) whenever the screen or the status changed. */
  changed: () => void
}

interface Waiter {
  check: () => boolean
}

export class TerminalSession {
  readonly id: string
  readonly agentId: string | undefined
  readonly command: string
  readonly pid: number
  readonly startedAt = Date.now()
  /** Resolves once the program exited and its output is on the screen. */
  readonly exited: Promise<void>
  private readonly parts: TerminalParts
  private status: 'running' | 'exited' = 'running'
  private exitCode: number | null = null
  private exitSignal: NodeJS.Signals | null = null
  /** The program is never paused: node-pty loses the last output of a program that exits while paused. */
  private readonly feed: ScreenFeed
  private readonly recent = new RecentText()
  private lastActivity = Date.now()
  /** Output came after the last keys were sent (their echo, at least some of it). */
  private outputSinceWrite = true
  private readonly waiters = new Set<Waiter>()
  /** The shell's line as typed since the last Enter (typed-line.ts). */
  private typedLine: LineState = EMPTY_LINE
  /** The shell's prompt, read off the screen when a line was started. */
  private prompt: string | undefined
  private killing: Promise<void> | undefined

  constructor(parts: TerminalParts) {
    this.parts = parts
    this.id = parts.id
    this.agentId = parts.agentId
    this.command = parts.command
    this.pid = parts.pty.pid
    this.feed = new ScreenFeed(parts.screen, () => {
      this.lastActivity = Date.now()
      this.notify()
      this.parts.changed()
    })
    parts.launch.attach(this.pid)
    parts.pty.onData((data) => this.output(data))
    keepLastOutput(parts.pty, (data) => this.output(data))
    this.exited = new Promise((resolve) => {
      parts.pty.onExit(({ exitCode, signal }) => {
        void this.feed.settle().then(() => {
          this.ended(exitCode, signal)
          resolve()
        })
      })
    })
  }

  info(): TerminalInfo {
    const { screen, launch } = this.parts
    return {
      id: this.id,
      agentId: this.agentId,
      command: this.command,
      cwd: launch.cwd,
      pid: this.pid,
      cols: screen.cols,
      rows: screen.rows,
      status: this.status,
      exitCode: this.exitCode,
      signal: this.exitSignal,
      startedAt: this.startedAt,
      foreground: this.foreground(),
    }
  }

  get running(): boolean {
    return this.status === 'running'
  }

  /** The name of the program in the terminal's foreground (the one a typed line goes to). */
  foreground(): string {
    if (this.status !== 'running') return ''
    try {
      return this.parts.pty.process
    } catch {
      // The terminal closed under us: nothing is in its foreground.
      return ''
    }
  }

  /** The shell's line as the model's typing left it (what Enter would run, when known). */
  get lineState(): LineState {
    return this.typedLine
  }

  /**
   * What the screen shows of the line at the cursor, with `typed` inserted where the cursor
   * is and the prompt left out: one reading when the prompt noted as the line began is
   * there, else every reading a prompt mark (`$ `, `# `, `% `, `> `) allows. Undefined while
   * the screen may not show it yet (no output since the last keys, or output not parsed yet).
   */
  shownLine(typed: string): string[] | undefined {
    if (!this.outputSinceWrite || !this.settledScreen()) return undefined
    const { text, offset } = this.parts.screen.cursorLine()
    const line = text.slice(0, offset) + typed + text.slice(offset)
    const prompt = this.prompt
    if (prompt !== undefined && line.startsWith(prompt)) return [line.slice(prompt.length).trim()]
    return withoutPrompts(line)
  }

  /** A shell in the terminal waits for the foreground program and reads the terminal after it (shells.ts). */
  shellWaits(): boolean {
    return shellWaits(this.pid)
  }

  /** The foreground program reads keys as they come (the terminal is not in line mode). */
  readsKeysAtOnce(): boolean {
    return readsKeysAtOnce((this.parts.pty as unknown as { _pty?: unknown })._pty as string | undefined)
  }

  /** The visible screen's last rows, for live views (does not move the read position). */
  tail(count: number): string[] {
    return this.parts.screen.tail(count)
  }

  /** Writes raw bytes (typed text and keys, already translated). */
  write(data: string): void {
    if (isShell(this.foreground())) {
      // A fresh line starts after the prompt: remember the prompt to read the line off the screen later.
      if (this.typedLine.line === '' && this.outputSinceWrite && this.settledScreen()) {
        const { text, offset } = this.parts.screen.cursorLine()
        this.prompt = text.slice(0, offset)
      }
      this.typedLine = typeInto(this.typedLine, data).state
    } else this.typedLine = typedElsewhere(this.typedLine, data)
    this.lastActivity = Date.now()
    this.outputSinceWrite = false
    this.parts.screen.typed(data)
    this.parts.pty.write(data)
  }

  resize(cols: number, rows: number): void {
    this.parts.screen.resize(cols, rows)
    if (this.running) this.parts.pty.resize(cols, rows)
    this.parts.changed()
  }

  /** Waits (bounded) for quiet output or a pattern, then answers the screen and the new scrollback. */
  async read(options: TerminalReadOptions): Promise<TerminalReading> {
    const started = Date.now()
    const outcome = await this.wait(options)
    // Settled or matched means parsed already; a timeout or an exit may leave some in flight.
    if (!this.settledScreen()) await this.feed.settle()
    const screen = this.parts.screen.read(this.parts.maxReadLines)
    this.recent.clear()
    const omittedLines = screen.omitted
    const transcriptPath = omittedLines > 0 || screen.dropped ? this.parts.transcript.spillNow() : undefined
    return {
      info: this.info(),
      outcome,
      waitedMs: Date.now() - started,
      screen,
      omittedLines,
      ...(transcriptPath !== undefined ? { transcriptPath } : {}),
    }
  }

  /**
   * Ends the program and everything it started: HUP and TERM (a closed terminal), KILL
   * after the grace period. Resolves once the program has exited.
   */
  kill(): Promise<void> {
    this.killing ??= (async () => {
      const { launch, killGraceMs } = this.parts
      if (this.running || launch.alive()) {
        launch.signal('SIGHUP')
        launch.signal('SIGTERM')
        const timer = setTimeout(() => launch.signal('SIGKILL'), killGraceMs)
        await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, killGraceMs + 3_000))])
        clearTimeout(timer)
        if (launch.alive()) launch.signal('SIGKILL')
      }
      this.release(5)
    })()
    return this.killing
  }

  /** Frees the screen; call after `kill`. Resolves once the transcript file is whole and closed. */
  dispose(): Promise<void> {
    this.parts.releaseMaster()
    this.feed.dispose()
    this.parts.screen.dispose()
    return this.parts.transcript.close()
  }

  private output(data: string): void {
    // Both keep the output as it came; each strips it when (and if) it is used.
    this.parts.transcript.push(data)
    this.recent.append(data)
    this.lastActivity = Date.now()
    this.outputSinceWrite = true
    this.feed.push(data)
  }

  private ended(exitCode: number, signal: number | undefined): void {
    this.status = 'exited'
    const name = signal ? signalName(signal) : null
    this.exitSignal = name
    this.exitCode = name === null ? exitCode : null
    const { launch, killGraceMs } = this.parts
    launch.exited()
    // A closed terminal leaves nothing behind: what the program started goes too.
    if (launch.alive()) {
      launch.signal('SIGHUP')
      launch.signal('SIGTERM')
      setTimeout(() => launch.signal('SIGKILL'), killGraceMs).unref()
    }
    this.release(5)
    this.notify()
    this.parts.changed()
  }

  /** Forgets the launch once nothing of it runs; retries while killed processes are leaving. */
  private release(attempts: number): void {
    if (this.parts.launch.release() || attempts <= 1) return
    setTimeout(() => this.release(attempts - 1), this.parts.killGraceMs).unref()
  }

  private wait(options: TerminalReadOptions): Promise<ReadOutcome> {
    const pattern = options.waitFor === undefined ? undefined : compilePattern(options.waitFor)
    return new Promise((resolve, reject) => {
      const started = Date.now()
      let timer: NodeJS.Timeout | undefined
      const finish = (outcome: ReadOutcome | Error) => {
        clearTimeout(timer)
        this.waiters.delete(waiter)
        options.signal?.removeEventListener('abort', onAbort)
        if (outcome instanceof Error) reject(outcome)
        else resolve(outcome)
      }
      const onAbort = () => finish('cancelled')
      const matched = (): boolean | Error => {
        try {
          return pattern !== undefined && this.matches(pattern)
        } catch (error) {
          // A pattern over its time budget (pattern.ts): the read fails with that error.
          return error as Error
        }
      }
      const check = (): boolean => {
        const match = matched()
        if (match instanceof Error) finish(match)
        else if (match) finish('matched')
        else if (this.status === 'exited' && this.settledScreen()) finish('exited')
        else if (Date.now() - started >= options.timeoutMs) finish('timeout')
        else if (!pattern && Date.now() - this.lastActivity >= options.settleMs && this.settledScreen())
          finish('settled')
        else return false
        return true
      }
      const waiter: Waiter = { check }
      const tick = () => {
        if (check()) return
        // Wake when quiet would be reached, or at the bound, whichever is first.
        const quietIn = pattern ? Number.POSITIVE_INFINITY : this.lastActivity + options.settleMs - Date.now()
        const boundIn = started + options.timeoutMs - Date.now()
        timer = setTimeout(tick, Math.max(5, Math.min(quietIn, boundIn)))
      }
      if (options.signal?.aborted) return finish('cancelled')
      options.signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.add(waiter)
      tick()
    })
  }

  private matches(pattern: RegExp): boolean {
    return this.recent.test(pattern)
  }

  /** Everything received is on the screen. */
  private settledScreen(): boolean {
    return this.feed.settled
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter.check()
  }
}

function signalName(signal: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, number]) => number === signal)
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null
}
