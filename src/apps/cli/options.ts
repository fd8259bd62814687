// Options shared by the commands that start an agent (`run`, `chat`): their commander
// declarations, their types, and the checks that need no harness (flag conflicts, cwd).

import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { CliError, CliErrorCode, usageError } from './errors.js'

/** How a command picks its session; at most one of the session flags is set. */
export interface AgentOptions {
  config?: string
  model?: string
  effort?: string
  cwd?: string
  sessionId?: string
  resume?: string
  continue?: boolean
  fork?: string
  agent?: string
}

/** Declares the agent options on a command. */
export function addAgentOptions(command: Command): Command {
  return command
    .option('--config <file>', 'config file (default: $DSH_HOME/config.yaml)')
    .option('-m, --model <name>', 'model name (default: model.name from the config, else deepseek-flash)')
    .option('--effort <level>', 'thinking effort: off, low, high or max (default: model.effort, else high)')
    .option('-C, --cwd <dir>', 'working folder of a new session (default: the current folder)')
    .option('--session-id <id>', 'use this exact session id: resume it when stored, create it otherwise')
    .option('-r, --resume <id>', 'resume a stored session')
    .option('-c, --continue', 'resume the most recent session of this folder')
    .option('--fork <id>', "start a new session seeded with a stored session's completed turns")
    .option('--agent <label>', 'use the agents[] row with this id from the config')
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
  for (const [flag, value] of [
    ['--session-id', options.sessionId],
    ['--resume', options.resume],
    ['--fork', options.fork],
  ] as const) {
    if (value !== undefined && value.trim() === '') throw usageError(`${flag} needs a non-empty session id`)
  }
}

/**
 * The working folder as an absolute, symlink-free path. It must exist, be a
 * directory, and be readable and enterable; otherwise one clear error.
 */
export function resolveCwd(dir: string | undefined, flag = '--cwd'): string {
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
