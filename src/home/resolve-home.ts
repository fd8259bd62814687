// The harness home: one folder resolved at composition and routed to every consumer.

import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { DshError } from '../core/errors.js'

export const HomeErrorCode = { Conflict: 'HOME_CONFLICT' } as const

/**
 * Resolves the harness home: an explicit value, else `$DSH_HOME` (blank counts as
 * unset), else `~/.dsh`. `~` is expanded and the result is absolute.
 */
export function resolveDshHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = nonBlank(explicit) ?? nonBlank(env.DSH_HOME) ?? '~/.dsh'
  return absolutePath(chosen)
}

/** Expands a leading `~` and makes a path absolute against `base` (default: the current directory). */
export function absolutePath(path: string, base: string = process.cwd()): string {
  let expanded = path
  if (path === '~') expanded = homedir()
  else if (path.startsWith('~/')) expanded = join(homedir(), path.slice(2))
  return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded)
}

/**
 * Resolves the one home from two configured values (top-level `dshHome` and
 * `skills.dshHome`); fails naming both when they point at different folders.
 */
export function resolveConfiguredHome(
  homes: { dshHome?: string; skillsDshHome?: string },
  env: NodeJS.ProcessEnv = process.env,
): string {
  const top = nonBlank(homes.dshHome)
  const skills = nonBlank(homes.skillsDshHome)
  if (top && skills && absolutePath(top) !== absolutePath(skills)) {
    throw new DshError(
      `conflicting harness homes: dshHome resolves to ${absolutePath(top)} but skills.dshHome resolves to ${absolutePath(skills)}`,
      HomeErrorCode.Conflict,
      { userFacing: true },
    )
  }
  return resolveDshHome(top ?? skills, env)
}

function nonBlank(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined
}
