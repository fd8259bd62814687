// Where a tool's path points: resolved against the session cwd (`~` is the home folder),
// symlinks followed for the real target, and whether it lies outside the cwd.

import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, relative, resolve, sep } from 'node:path'

export interface ToolPath {
  /** Absolute path as given (symlinks not resolved). */
  readonly absolute: string
  /** True when the path is not the cwd or inside it (after following symlinks). */
  readonly outside: boolean
  /** How results name it: relative to the cwd when inside, else absolute. */
  readonly display: string
}

export function resolveToolPath(cwd: string, path: string): ToolPath {
  const expanded = path === '~' ? homedir() : path.startsWith('~/') ? homedir() + path.slice(1) : path
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded)
  const outside = !isInside(cwd, absolute) || !isInside(realOrSelf(cwd), realOrSelf(absolute))
  return { absolute, outside, display: displayPath(cwd, absolute) }
}

/** `path` relative to `cwd` when inside it, else absolute. */
export function displayPath(cwd: string, absolute: string): string {
  if (!isInside(cwd, absolute)) return absolute
  return relative(cwd, absolute) || '.'
}

export function isInside(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep)
}

/** The real path of `path`, or of its nearest existing ancestor plus the rest. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // Missing: a file about to be created; judge it by the folder it would land in.
    const parent = resolve(path, '..')
    if (parent === path) return path
    return resolve(realOrSelf(parent), relative(parent, path))
  }
}

/** A note for results about a path outside the working folder. */
export function outsideNote(path: ToolPath): string {
  return path.outside ? ' (outside the working folder)' : ''
}
