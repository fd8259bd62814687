// Runs one command hook through the shell executor, the JSON payload on stdin, in the
// session cwd, killed at its timeout or when the bridge's signal aborts. Shell form is
// `bash -c <command>`; exec form (`args`) execs the program with exactly those arguments.

import { errorMessage } from '../../core/errors.js'
import { shellQuote } from '../../core/shell-quote.js'
import type { ShellExecutor } from '../../shell/executor.js'
import type { HookRun } from './types.js'

/** Timeout of a hook whose settings name none: 600 s, as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_MS = 600_000

export interface HookRunRequest {
  /** The current executor (`ctx.get('shell')` at call time); undefined → an error run. */
  shell: ShellExecutor | undefined
  command: string
  /** Exec form: the program's arguments (no shell interprets them). */
  args?: readonly string[]
  /** Absolute working directory: the session cwd. */
  cwd: string
  /** Sent as JSON on stdin. */
  payload: unknown
  /** Per-hook timeout in seconds; default DEFAULT_HOOK_TIMEOUT_MS. */
  timeoutSec?: number
  /** Ordinary variables for the hook (no `DSH_*` keys). */
  env?: Readonly<Record<string, string>>
  /** Aborting kills the hook (the bridge unloaded). */
  signal: AbortSignal
}

/** Runs the hook to completion. Never rejects: anything that went wrong is in the HookRun. */
export async function runHookCommand(request: HookRunRequest): Promise<HookRun> {
  const started = Date.now()
  const failed = (error: string): HookRun => ({
    exitCode: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    killed: request.signal.aborted,
    durationMs: Date.now() - started,
    error,
  })
  if (!request.shell) return failed('no shell executor is loaded')
  if (request.signal.aborted) return failed('the hook bridge was unloaded')
  try {
    const result = await request.shell.run({
      command: request.args ? execLine(request.command, request.args) : request.command,
      workdir: request.cwd,
      timeoutMs: request.timeoutSec !== undefined ? request.timeoutSec * 1000 : DEFAULT_HOOK_TIMEOUT_MS,
      signal: request.signal,
      stdin: JSON.stringify(request.payload),
      ...(request.env ? { env: request.env } : {}),
    })
    const run: HookRun = {
      exitCode: result.exitCode,
      // The executor keeps only a capped tail of each stream; only that is ever parsed.
      stdout: result.stdout.text,
      stderr: result.stderr.text,
      timedOut: result.timedOut,
      killed: result.killed,
      durationMs: result.durationMs,
    }
    const notStarted = notStartedReason(run, request.args !== undefined)
    if (notStarted !== undefined) run.notStarted = notStarted
    return run
  } catch (error) {
    return failed(errorMessage(error))
  }
}

/** `exec 'program' 'arg' …`: bash only execs; every word is single-quoted, so argv is exactly as given. */
export function execLine(program: string, args: readonly string[]): string {
  return ['exec', ...[program, ...args].map(shellQuote)].join(' ')
}

/**
 * Bash answers 127 when the program is not found and 126 when it cannot be executed. In
 * exec form those codes can only mean that; in shell form only together with bash's own message.
 */
function notStartedReason(run: HookRun, execForm: boolean): string | undefined {
  if (run.exitCode !== 127 && run.exitCode !== 126) return undefined
  const stderr = run.stderr.trim()
  const bashSaid = /(command not found|No such file or directory|Permission denied|cannot execute)/.test(
    stderr,
  )
  if (!execForm && !bashSaid) return undefined
  const why = run.exitCode === 127 ? 'not found' : 'not executable'
  const detail = stderr.split('\n').at(-1) ?? ''
  return detail ? `${why}: ${detail}` : why
}
