// Types of the terminal seam: what starts a terminal, what a read answers, and what front
// ends are told about the terminals that run.

import type { ShellStartRequest } from '../shell/types.js'
import type { ScreenSnapshot } from './screen.js'

export type TerminalStatus = 'running' | 'exited'

/** Who a terminal belongs to: the agent (its session) that started it. */
export interface TerminalOwner {
  /** The agent's id (its session id); undefined for calls without an agent. */
  readonly agentId: string | undefined
}

export interface TerminalStartRequest {
  /** What the shell runs (`<shell> -c <command>`), like `bash`'s; empty: an interactive shell. */
  command: string
  /** The request the executor prepares (workdir, managed snapshot, sandbox paths). */
  shell: Omit<ShellStartRequest, 'command'>
  cols?: number
  rows?: number
  /** Names a fresh file for the transcript once it must spill (the session's spill folder). */
  spillPath?: () => string
}

/** A terminal as lists and live views show it. */
export interface TerminalInfo {
  readonly id: string
  readonly agentId: string | undefined
  readonly command: string
  readonly cwd: string
  readonly pid: number
  readonly cols: number
  readonly rows: number
  readonly status: TerminalStatus
  /** Set once exited: the exit code, or null when a signal ended it. */
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  /** Epoch ms. */
  readonly startedAt: number
  /** The program in the foreground now (`bash`, `python3`, `less`). */
  readonly foreground: string
}

export interface TerminalReadOptions {
  /** A regular expression (or, when it does not compile, literal text) to wait for in new output. */
  waitFor?: string
  /** Upper bound of the wait. */
  timeoutMs: number
  /** Quiet time that counts as settled when no pattern is given. */
  settleMs: number
  signal?: AbortSignal
}

/** Why a read returned. */
export type ReadOutcome = 'settled' | 'matched' | 'timeout' | 'exited' | 'cancelled'

export interface TerminalReading {
  readonly info: TerminalInfo
  readonly outcome: ReadOutcome
  readonly waitedMs: number
  readonly screen: ScreenSnapshot
  /** New scrollback lines left out of this reading (the oldest), when there were too many. */
  readonly omittedLines: number
  /** The transcript file, when lines were left out or dropped and it could be written. */
  readonly transcriptPath?: string
}
