// Types of the shell seam: managed-environment contributors and snapshots, and the
// request, result and job handle every executor speaks.

import type { ToolExecution } from '../plugin-api/index.js'
import type { DshEnvKey } from './namespace.js'

/** A frozen per-call snapshot of managed variables; only `DSH_*` keys. */
export type DshEnvSnapshot = Readonly<Partial<Record<DshEnvKey, string>>>

/**
 * A plugin's contribution to the managed environment: every key it may return, each
 * with a description, and a resolver run for every tool call.
 */
export interface ShellEnvContributor<Key extends DshEnvKey = DshEnvKey> {
  /** Unique, non-blank. */
  name: string
  /** Every key `resolve` may return, with a non-blank description each. */
  keys: Readonly<Record<Key, string>>
  /**
   * Runs synchronously for each call. Omitted (or `undefined`) keys are absent for this
   * call; an undeclared key or a non-string value fails the call.
   */
  resolve(execution: ToolExecution): Partial<Record<Key, string | undefined>>
}

/** One declared managed variable, as `list()` reports it (resolvers are not run). */
export interface ShellEnvDeclaration {
  key: DshEnvKey
  description: string
  /** The owning contributor's name; built-ins belong to `builtin`. */
  contributor: string
  builtin: boolean
}

/** What to run. Executors resolve it into a full spec before spawning anything. */
export interface ShellRequest {
  /** Run as `<shell> -c <command>`. Non-empty. */
  command: string
  /** Working directory; relative paths resolve against `process.cwd()`. Default: `process.cwd()`. */
  workdir?: string
  /** Foreground only. Default DEFAULT_SHELL_TIMEOUT_MS (120 s); values above MAX_SHELL_TIMEOUT_MS (600 s) are capped. */
  timeoutMs?: number
  /** Aborting kills the whole process group (TERM, then KILL after the grace period). */
  signal?: AbortSignal
  /** Written to the child's stdin; without it stdin is `/dev/null`. */
  stdin?: string
  /** Ordinary variables, applied after the scrubbed process environment. No `DSH_*` keys. */
  env?: Readonly<Record<string, string>>
  /** The managed snapshot (`ctx.shellEnv.collect(execution)`), applied last. Only `DSH_*` keys. */
  dshEnv?: DshEnvSnapshot
  /**
   * Names a fresh file for a stream's full output once it passes the cap (the session's
   * spill folder: `ctx.spill.allocate(sessionId, label)`). Default: the executor's own
   * private folder, which is removed when the executor unloads.
   */
  spillPath?: (stream: 'stdout' | 'stderr') => string
  /** Under a sandbox: the folder writable in workspace-write. Default: the project root of `workdir`. */
  projectRoot?: string
  /** Under a sandbox: paths in the harness home this call may read (its spill folder, skills). */
  readablePaths?: readonly string[]
}

/** A background run: like ShellRequest, without a timeout. */
export type ShellStartRequest = Omit<ShellRequest, 'timeoutMs'>

/** One output stream: its tail, and the full stream in a private file when the tail is cut. */
export interface CapturedOutput {
  /** The last `maxOutputChars` characters (UTF-16 code units) of the stream. */
  text: string
  /** Characters the stream produced in all. */
  totalChars: number
  truncated: boolean
  /**
   * Absolute path of a private (0600) file with the full stream; set when `truncated`. Past
   * 64 MiB (output-capture.ts) it holds the stream's head and a note, see `droppedChars`.
   */
  fullOutputPath?: string
  /** Characters left out of the `fullOutputPath` file past its cap (its head is kept). */
  droppedChars?: number
}

/** How a command ended. A non-zero exit, a timeout and a kill are results, not errors. */
export interface ShellResult {
  /** The exit code when the shell exited by itself; null when a signal ended it. */
  exitCode: number | null
  /** The signal that ended the shell, if any. */
  signal: NodeJS.Signals | null
  /** True when the timeout fired and the group was killed. */
  timedOut: boolean
  /** True when the run was stopped on request: abort signal, `kill()`, or executor unload. */
  killed: boolean
  stdout: CapturedOutput
  stderr: CapturedOutput
  durationMs: number
  /** The effective timeout (foreground runs only). */
  timeoutMs?: number
  /** The absolute working directory the command ran in. */
  workdir: string
}

export type ShellJobStatus = 'running' | 'exited' | 'killed'

/** A background run, returned by `start` at once. */
export interface ShellJobHandle {
  readonly id: string
  /** The shell's pid, which is also its process-group id. */
  readonly pid: number
  readonly command: string
  readonly workdir: string
  /** Epoch ms. */
  readonly startedAt: number
  /** `running` until the shell ends; `killed` when it was stopped on request. */
  readonly status: ShellJobStatus
  /** The output so far (tails, plus spill paths once a stream passed its cap). */
  output(): { stdout: CapturedOutput; stderr: CapturedOutput }
  /** Resolves when the job ends (never rejects). */
  readonly done: Promise<ShellResult>
  /** Kills the whole process group (TERM, then KILL after the grace period); resolves with the final result. */
  kill(): Promise<ShellResult>
}

/**
 * A command prepared for another spawner (a pseudo-terminal): what to exec, in which
 * folder, with which environment, already wrapped in the call's containment (and bwrap
 * under a sandbox). The spawner reports the pid, and uses `signal` — never a bare group
 * kill — so that a late signal cannot reach a stranger that reused the id.
 */
export interface ShellLaunch {
  readonly file: string
  readonly args: readonly string[]
  /** Absolute. */
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** Call once the program runs, with its pid (which leads its own process group). */
  attach(pid: number): void
  /** Signals everything of the launch; false when nothing was left. */
  signal(signal: NodeJS.Signals): boolean
  /** True while anything of the launch runs. */
  alive(): boolean
  /** Call when the program exited: frees what the sandbox held for it. */
  exited(): void
  /** Forgets the launch once nothing of it runs; false while something still does (retry later). */
  release(): boolean
}
