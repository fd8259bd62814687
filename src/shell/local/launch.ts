// Command lines shared by the executor's own runs and by launches another spawner starts
// (a pseudo-terminal, src/terminal): the shell, wrapped in bubblewrap under a sandbox and
// in the call's containment, with the child environment built the one documented way.

import { statSync } from 'node:fs'
import { basename } from 'node:path'
import { DshError } from '../../core/errors.js'
import { findProjectRoot } from '../../core/project-root.js'
import { shellQuote } from '../../core/shell-quote.js'
import { ShellErrorCode } from '../errors.js'
import { SOURCED_ENV_KEY_PATTERN } from '../namespace.js'
import type { ShellSpec } from '../request.js'
import { bwrapArgs, DEFAULT_BWRAP_PATH, type SandboxPolicy } from '../sandbox/bwrap.js'
import { ensureEmptyFile, protectProjectConfig } from '../sandbox/config-mounts.js'
import type { SecretFilter } from '../secrets.js'
import type { ShellLaunch } from '../types.js'
import { buildChildEnv } from './child-env.js'
import type { CallContainment } from './containment.js'

/**
 * The program, its arguments and what to release when it exits: `shell` (argv), or bwrap
 * around it under a sandbox. `newSession: false` keeps bwrap from calling setsid, so a
 * program in a pseudo-terminal keeps that terminal as its controlling terminal.
 */
export function commandLine(
  spec: ShellSpec,
  shell: readonly string[],
  sandbox: SandboxPolicy | undefined,
  newSession = true,
): [string, string[], () => void] {
  if (!isSandboxed(sandbox)) return [shell[0]!, shell.slice(1), () => {}]
  const readable = [...(spec.readablePaths ?? [])]
  // The managed variables point the model at its own files (the session log): keep those.
  for (const value of Object.values(spec.dshEnv)) if (value?.startsWith('/')) readable.push(value)
  const paths = {
    workdir: spec.workdir,
    projectRoot: spec.projectRoot ?? findProjectRoot(spec.workdir),
    readable,
  }
  const config =
    sandbox.mode === 'workspace-write'
      ? protectProjectConfig(paths.projectRoot, ensureEmptyFile(sandbox.home))
      : { args: [], release: () => {} }
  const args = [...bwrapArgs(sandbox, paths, config.args, { newSession }), '--', ...shell]
  return [sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH, args, config.release]
}

/** Whether commands run inside bubblewrap under this policy. */
export function isSandboxed(sandbox: SandboxPolicy | undefined): sandbox is SandboxPolicy {
  return sandbox !== undefined && sandbox.mode !== 'off'
}

/**
 * Whether the shell can be started directly and enter its call's containment as the first
 * thing its script does (CallContainment.joinScript), instead of through `wrap`'s `sh`:
 * only bash, and only when its environment cannot run code before the script — BASH_ENV
 * (a file bash sources first), SHELLOPTS/BASHOPTS (xtrace expands PS4, which can run
 * commands) and exported functions (one named `echo` would stand in for the join).
 */
export function bashJoinsItself(shellPath: string, env: Readonly<Record<string, string>>): boolean {
  if (basename(shellPath) !== 'bash') return false
  for (const name of Object.keys(env))
    if (name === 'BASH_ENV' || name === 'SHELLOPTS' || name === 'BASHOPTS' || name.startsWith('BASH_FUNC_'))
      return false
  return true
}

/**
 * `. '<file>'` lines for the session env files the call's snapshot names
 * (SOURCED_ENV_KEY_PATTERN: what SessionStart hooks wrote to CLAUDE_ENV_FILE/CODEX_ENV_FILE).
 */
export function sourcedPrefix(dshEnv: ShellSpec['dshEnv']): string {
  let prefix = ''
  for (const [key, file] of Object.entries(dshEnv)) {
    if (file === undefined || !SOURCED_ENV_KEY_PATTERN.test(key)) continue
    prefix += `. ${shellQuote(file)}\n`
  }
  return prefix
}

/** Throws WorkdirNotFound unless `workdir` is a directory. */
export function checkWorkdir(workdir: string): void {
  let kind: 'missing' | 'file' | 'directory' = 'missing'
  try {
    kind = statSync(workdir).isDirectory() ? 'directory' : 'file'
  } catch {
    // Missing or unreadable: reported below as a missing working directory.
  }
  if (kind === 'missing') {
    throw new DshError(`working directory does not exist: ${workdir}`, ShellErrorCode.WorkdirNotFound)
  }
  if (kind === 'file') {
    throw new DshError(`working directory is not a directory: ${workdir}`, ShellErrorCode.WorkdirNotFound)
  }
}

/**
 * A launch of `<shell> -c <command>` for another spawner: contained, sandboxed and with
 * the scrubbed environment like the executor's own runs. Throws (and releases the
 * containment) when the workdir is missing.
 */
export function prepareLaunch(
  spec: ShellSpec,
  shellPath: string,
  secrets: SecretFilter,
  sandbox: SandboxPolicy | undefined,
  contained: CallContainment,
): ShellLaunch {
  let releaseSandbox = () => {}
  try {
    checkWorkdir(spec.workdir)
    // Always through `wrap`, never a bash that joins itself (joinScript): the joining bash
    // would stay the terminal's foreground program, which the terminal names (`python3`).
    const [command, args, release] = commandLine(spec, [shellPath, '-c', spec.command], sandbox, false)
    releaseSandbox = release
    const [file, wrapped] = contained.wrap(command, args)
    const env = { ...buildChildEnv(process.env, spec.env, spec.dshEnv, secrets), ...contained.env }
    let exited = false
    return {
      file,
      args: wrapped,
      cwd: spec.workdir,
      env,
      attach: (pid) => contained.attach(pid),
      signal: (signal) => contained.signal(signal),
      alive: () => contained.alive(),
      exited() {
        if (exited) return
        exited = true
        releaseSandbox()
      },
      release: () => contained.release(),
    }
  } catch (error) {
    releaseSandbox()
    contained.release()
    throw error
  }
}
