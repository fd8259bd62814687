// Options shared by the commands that start an agent (`run`, `chat`, `web`, `stdio`,
// `acp`): their types and the checks that need no harness (flag conflicts, cwd). The
// command line declares them (src/apps/cli/flags.ts).

import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from '../../permissions/modes.js'
import { parsePermissionRule } from '../../permissions/rule-parser.js'
import { SANDBOX_MODES, type SandboxMode } from '../../shell/sandbox/bwrap.js'
import { CliError, CliErrorCode, usageError } from './errors.js'

/** How a command picks its session; at most one of the session flags is set. */
export interface AgentOptions {
  config?: string
  model?: string
  effort?: string
  cwd?: string
  sessionId?: string
  /** `true`: `-r` with no id, the chat's picker. */
  resume?: string | true
  continue?: boolean
  fork?: string
  /** `--at-turn N`: with `--fork`, cut the history after turn N. */
  atTurn?: string
  agent?: string
  /** `--no-project-config`: commander's negation sets it false. */
  projectConfig?: boolean
  /** `--trust-project`: trust the project folder's own configuration without asking. */
  trustProject?: boolean
  permissionMode?: string
  allowedTools?: string[]
  disallowedTools?: string[]
  sandbox?: string
  /** `--sandbox-network` true, `--no-sandbox-network` false, neither undefined. */
  sandboxNetwork?: boolean
  /** `chat --show-reasoning`: on a pipe, put the reasoning on stdout, marked, instead of stderr. */
  showReasoning?: boolean
}

/** The permission and sandbox flags every agent-starting command takes. */
export interface PermissionOptions {
  sandbox?: string
  /** `--sandbox-network` / `--no-sandbox-network`. */
  sandboxNetwork?: boolean
  permissionMode?: string
  allowedTools?: string[]
  disallowedTools?: string[]
}

/** Checks the permission flags; returns them in the harness's shape. */
export function permissionFlags(
  options: Pick<AgentOptions, 'permissionMode' | 'allowedTools' | 'disallowedTools'>,
): {
  mode?: PermissionMode
  allowedTools?: string[]
  disallowedTools?: string[]
} {
  const mode = options.permissionMode
  if (mode !== undefined && !isPermissionMode(mode)) {
    throw usageError(
      `--permission-mode ${JSON.stringify(mode)}: expected one of ${PERMISSION_MODES.join(', ')}`,
    )
  }
  for (const [flag, rules] of [
    ['--allowed-tools', options.allowedTools],
    ['--disallowed-tools', options.disallowedTools],
  ] as const) {
    for (const rule of rules ?? []) {
      try {
        parsePermissionRule(rule)
      } catch (error) {
        throw usageError(`${flag}: ${(error as Error).message}`)
      }
    }
  }
  return {
    ...(mode !== undefined ? { mode } : {}),
    ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
    ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
  }
}

/**
 * The sandbox flags as config overrides (a flag beats the config file); spread them over
 * the config. A bad `--sandbox` value is a one-line usage error.
 */
export function sandboxFlags(options: Pick<AgentOptions, 'sandbox' | 'sandboxNetwork'>): {
  sandbox?: SandboxMode
  sandboxNetwork?: boolean
} {
  const mode = options.sandbox
  if (mode !== undefined && !isSandboxMode(mode)) {
    throw usageError(`--sandbox ${JSON.stringify(mode)}: expected one of ${SANDBOX_MODES.join(', ')}`)
  }
  return {
    ...(mode !== undefined ? { sandbox: mode } : {}),
    ...(options.sandboxNetwork !== undefined ? { sandboxNetwork: options.sandboxNetwork } : {}),
  }
}

function isSandboxMode(value: string): value is SandboxMode {
  return (SANDBOX_MODES as readonly string[]).includes(value)
}

/** The trust settings of a front end from `--no-project-config` and `--trust-project`. */
export function trustFlags(
  options: { projectConfig?: boolean; trustProject?: boolean },
  frontEnd: 'interactive' | 'headless',
): { frontEnd: 'interactive' | 'headless'; disabled: boolean; granted?: true } {
  return {
    frontEnd,
    disabled: options.projectConfig === false,
    ...(options.trustProject === true ? { granted: true as const } : {}),
  }
}

/** Rejects combinations of session flags that cannot both hold. */
export function checkSessionFlags(options: AgentOptions): void {
  const given = [
    options.sessionId !== undefined && '--session-id',
    options.resume !== undefined && '--resume',
    options.continue === true && '--continue',
    options.fork !== undefined && '--fork',
  ].filter((flag): flag is string => flag !== false)
  if (given.length > 1) throw usageError(`${given.join(' and ')} cannot be combined`)
  if (options.resume === true)
    throw usageError(
      '--resume needs a session id here (the picker opens only in the interactive chat: dsh -r)',
    )
  for (const [flag, value] of [
    ['--session-id', options.sessionId],
    ['--resume', options.resume],
    ['--fork', options.fork],
  ] as const) {
    if (typeof value === 'string' && value.trim() === '')
      throw usageError(`${flag} needs a non-empty session id`)
  }
  if (options.model !== undefined && options.model.trim() === '')
    throw usageError('--model needs a model name (dsh models lists them)')
  if (options.atTurn !== undefined) {
    if (options.fork === undefined) throw usageError('--at-turn goes with --fork ID')
    parseTurn(options.atTurn)
  }
}

/** `--at-turn N` / `/fork N`: a whole number from 1 (the end of the log is checked by the fork). */
export function parseTurn(value: string, where = '--at-turn'): number {
  const turn = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(turn) || turn < 1) {
    throw usageError(`${where} ${JSON.stringify(value)}: expected a turn number from 1`)
  }
  return turn
}

/**
 * The working folder as an absolute, symlink-free path. It must exist, be a
 * directory, and be readable and enterable; otherwise one clear error.
 */
export function resolveCwd(dir: string | undefined, flag = '--cwd'): string {
  // An empty value would quietly mean the current folder.
  if (dir !== undefined && dir.trim() === '') throw usageError(`${flag} needs a folder`)
  const path = resolve(dir ?? process.cwd())
  const what = dir === undefined ? 'the current folder' : `${flag} ${path}`
  let isDirectory: boolean
  try {
    isDirectory = statSync(path).isDirectory()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new CliError(
      `${what}: ${code === 'ENOENT' ? 'no such folder' : describeCode(code)}`,
      CliErrorCode.BadCwd,
    )
  }
  if (!isDirectory) throw new CliError(`${what}: not a folder`, CliErrorCode.BadCwd)
  try {
    accessSync(path, constants.R_OK | constants.X_OK)
  } catch (error) {
    throw new CliError(`${what}: ${describeCode((error as NodeJS.ErrnoException).code)}`, CliErrorCode.BadCwd)
  }
  return realpathSync(path)
}

function describeCode(code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'ENOTDIR') return 'not a folder'
  return `cannot be used (${code ?? 'unknown error'})`
}
