// How the command line ends: exit codes, and one-line error printing (a stack only
// for unexpected errors, and only with DSH_DEBUG=1).

import { ConfigErrorCode } from '../../config/errors.js'
import { DshError } from '../../core/errors.js'
import { toTerminalText } from '../../core/terminal-text.js'
import { HistoryErrorCode } from '../../history/errors.js'
import { LlmErrorCode } from '../../llm/errors.js'
import { PersistenceErrorCode } from '../../persistence/errors.js'
import { SessionErrorCode } from '../../session/errors.js'

export const ExitCode = {
  Ok: 0,
  /** A command failed, or a turn ended without completing. */
  Failure: 1,
  /** Bad flags or arguments. */
  Usage: 2,
  /** Interrupted with Ctrl-C (128 + SIGINT). */
  Interrupted: 130,
} as const

export const CliErrorCode = {
  Usage: 'CLI_USAGE',
  BadCwd: 'CLI_BAD_CWD',
  NoSession: 'CLI_NO_SESSION',
  NotInteractive: 'CLI_NOT_INTERACTIVE',
} as const

/** A user-facing error of the command line; `exitCode` defaults to 1. */
export class CliError extends DshError {
  readonly exitCode: number

  constructor(message: string, code: string, exitCode: number = ExitCode.Failure) {
    super(message, code, { userFacing: true })
    this.exitCode = exitCode
  }
}

/** A usage error (exit 2), e.g. conflicting flags. */
export function usageError(message: string): CliError {
  return new CliError(message, CliErrorCode.Usage, ExitCode.Usage)
}

/**
 * The one rule for exit 2: the command line itself is wrong — an unknown command or
 * option, a missing or malformed value, flags that cannot be combined, or a value that
 * names nothing: a folder (`-C`), a session (`-r`, `--fork`, a command's id; an id that
 * cannot be one, `--session-id` too), a config file (`--config`), an agents[] row
 * (`--agent`). These are the error codes that carry
 * such values; what lies beyond the command line (a config file's content, a missing API
 * key, the model's answers) stays exit 1.
 */
const USAGE_ERROR_CODES: ReadonlySet<string> = new Set([
  CliErrorCode.Usage,
  CliErrorCode.BadCwd,
  LlmErrorCode.BadEffort,
  PersistenceErrorCode.NotFound,
  HistoryErrorCode.AmbiguousId,
  HistoryErrorCode.InvalidTitle,
  ConfigErrorCode.NotFound,
  SessionErrorCode.BadTurn,
  SessionErrorCode.InvalidId,
])

/** The exit code of a user-facing error under the rule above. */
export function exitCodeOf(error: DshError): number {
  if (USAGE_ERROR_CODES.has(error.code)) return ExitCode.Usage
  return error instanceof CliError ? error.exitCode : ExitCode.Failure
}

/**
 * Prints `error` to stderr and returns the exit code. A user-caused error is one line;
 * an unexpected one is one line plus a hint, or its stack when DSH_DEBUG is set.
 */
export function reportError(error: unknown, env: NodeJS.ProcessEnv = process.env): number {
  const debug = env.DSH_DEBUG !== undefined && env.DSH_DEBUG !== '' && env.DSH_DEBUG !== '0'
  if (error instanceof DshError && error.userFacing) {
    process.stderr.write(`dsh: ${oneLine(error.message)}\n`)
    if (debug && error.stack) process.stderr.write(`${error.stack}\n`)
    return exitCodeOf(error)
  }
  const message = error instanceof Error ? error.message : String(error)
  if (debug) {
    process.stderr.write(`dsh: unexpected error: ${oneLine(message)}\n`)
    process.stderr.write(`${error instanceof Error && error.stack ? error.stack : String(error)}\n`)
  } else {
    process.stderr.write(`dsh: unexpected error: ${oneLine(message)} (set DSH_DEBUG=1 to see the stack)\n`)
  }
  return ExitCode.Failure
}

/** One line, with escape sequences and bidi controls (a session id in the message) shown escaped. */
function oneLine(text: string): string {
  return toTerminalText(text.replace(/\s*\n\s*/g, ' ').trim(), { keepTabs: false })
}
