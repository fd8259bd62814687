// The optional sandbox of model-run commands (Linux, bubblewrap): turns a policy and a
// call's paths into bwrap arguments, and probes once that bwrap can run at all.

import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { DshError } from '../../core/errors.js'
import { ShellErrorCode } from '../errors.js'
import { harnessHiddenPaths, isInside, type SessionStoreFiles } from './hidden-paths.js'

export const SANDBOX_MODES = ['off', 'workspace-write', 'read-only'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]

export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap'

/** A resolved sandbox policy. `mode: 'off'` runs commands unsandboxed. */
export interface SandboxPolicy {
  mode: SandboxMode
  /** False: a new, empty network namespace (loopback down). Default true. */
  network: boolean
  /** The harness home: hidden except the call's own readable paths. */
  home: string
  /** The session store's files, hidden too when outside the home (config `persistence`). */
  store?: SessionStoreFiles
  /** Absolute path of bwrap. Default DEFAULT_BWRAP_PATH. */
  bwrapPath?: string
}

/** The paths of one call. */
export interface SandboxCallPaths {
  workdir: string
  /** Writable under workspace-write. */
  projectRoot: string
  /** Paths under the harness home the call may read (its log, spill folder, skills). */
  readable: readonly string[]
}

/**
 * The bwrap arguments (everything before the shell) for one call. `configMounts`: the
 * read-only mounts over the project's configuration (protectProjectConfig), laid over the
 * writable project under workspace-write. `newSession: false` leaves out `--new-session`.
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  paths: SandboxCallPaths,
  configMounts: readonly string[] = [],
  options: { newSession?: boolean } = {},
): string[] {
  // A new session keeps a command from injecting input into dsh's own terminal; a program
  // in its own pseudo-terminal (src/terminal) needs that terminal as its controlling one.
  const args = [
    '--die-with-parent',
    ...(options.newSession === false ? [] : ['--new-session']),
    '--unshare-pid',
    // Started by root, bwrap keeps every capability: the command could unmount the
    // read-only binds (or remount / writable) and undo the whole sandbox.
    '--cap-drop',
    'ALL',
  ]
  if (!policy.network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  const home = resolve(policy.home)
  // hidden-paths.ts defines what is hidden; the file tools refuse the same paths. A hidden
  // folder holding the project is covered before the project is bound back; a hidden path
  // inside the project after, so it stays hidden.
  const hidden = harnessHiddenPaths(home, policy.store).filter((path) => existsSync(path))
  const [around, within] = [true, false].map((holds) =>
    hidden.filter((path) => isInside(paths.projectRoot, path) === holds),
  ) as [string[], string[]]
  hide(args, around)
  if (policy.mode === 'workspace-write')
    args.push('--bind', paths.projectRoot, paths.projectRoot, ...configMounts)
  else if ([...around, '/tmp'].some((folder) => isInside(paths.projectRoot, folder))) {
    args.push('--ro-bind', paths.projectRoot, paths.projectRoot)
  }
  hide(args, within)
  for (const path of paths.readable) {
    const below = hidden.some((root) => isInside(path, root) && resolve(path) !== root)
    if (below && existsSync(path)) args.push('--ro-bind', path, path)
  }
  args.push('--chdir', paths.workdir)
  return args
}

/** A tmpfs over each hidden folder, /dev/null over each hidden file. */
function hide(args: string[], paths: readonly string[]): void {
  for (const path of paths) {
    if (statSync(path).isDirectory()) args.push('--tmpfs', path)
    else args.push('--ro-bind', '/dev/null', path)
  }
}

/**
 * Checks that bwrap exists and can build a namespace here. Throws DshError
 * SHELL_SANDBOX_UNAVAILABLE with one line naming the problem; never falls back.
 */
export function assertSandboxAvailable(bwrapPath: string = DEFAULT_BWRAP_PATH): void {
  if (!existsSync(bwrapPath)) {
    throw new DshError(
      `sandbox: bubblewrap not found at ${bwrapPath} (install the bubblewrap package, set sandboxBwrapPath, or use sandbox: off)`,
      ShellErrorCode.SandboxUnavailable,
      { userFacing: true },
    )
  }
  const probe = spawnSync(bwrapPath, ['--unshare-pid', '--ro-bind', '/', '/', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  })
  if (probe.status !== 0) {
    const reason = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0]
    throw new DshError(
      `sandbox: ${bwrapPath} cannot run here (${reason}; are user namespaces disabled?)`,
      ShellErrorCode.SandboxUnavailable,
      { userFacing: true },
    )
  }
}
