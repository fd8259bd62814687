// The optional sandbox of model-run commands (Linux, bubblewrap): turns a policy and a
// call's paths into bwrap arguments, and probes once that bwrap can run at all.

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { DshError } from '../../core/errors.js'
import { ShellErrorCode } from '../errors.js'

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

/** True when `path` is `folder` or below it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(resolve(folder), resolve(path))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * The bwrap arguments (everything before the shell) for one call. `configMounts`: the
 * read-only mounts over the project's configuration (protectProjectConfig), laid over the
 * writable project under workspace-write.
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  paths: SandboxCallPaths,
  configMounts: readonly string[] = [],
): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-pid']
  if (!policy.network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  const home = resolve(policy.home)
  if (existsSync(home)) {
    args.push('--tmpfs', home)
    for (const path of paths.readable) {
      if (isInside(path, home) && resolve(path) !== home && existsSync(path))
        args.push('--ro-bind', path, path)
    }
  }
  // After /tmp and the home are covered, so a project below either is still writable.
  if (policy.mode === 'workspace-write')
    args.push('--bind', paths.projectRoot, paths.projectRoot, ...configMounts)
  else if (isInside(paths.projectRoot, '/tmp') || isInside(paths.projectRoot, home)) {
    args.push('--ro-bind', paths.projectRoot, paths.projectRoot)
  }
  args.push('--chdir', paths.workdir)
  return args
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
