// Path patterns of file rules (`Read(./.env)`, `Edit(/src/**)`), gitignore-style as Claude
// Code documents: `//abs` from the file-system root, `~/p` from the home folder, `/p` from
// the rule's base folder (its settings file's project), `p` or `./p` from the cwd.

import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import picomatch from 'picomatch'

const compiled = new Map<string, (path: string) => boolean>()

function matcherFor(glob: string): (path: string) => boolean {
  let matcher = compiled.get(glob)
  if (!matcher) {
    const regex = picomatch.makeRe(glob, { dot: true })
    // picomatch writes `**` with `.`, which stops at a newline: a file name holding one
    // (`secret/a\nb`) must not slip past `Read(./secret/**)`.
    const dotAll = new RegExp(regex.source, `${regex.flags.replace('s', '')}s`)
    matcher = (path) => dotAll.test(path)
    compiled.set(glob, matcher)
  }
  return matcher
}

/** The absolute globs a path pattern stands for, given the cwd and the rule's base folder. */
export function expandPathPattern(pattern: string, cwd: string, baseDir: string | undefined): string[] {
  let absolute: string
  let anyDepth = false
  if (pattern.startsWith('//')) absolute = pattern.slice(1)
  else if (pattern === '~' || pattern.startsWith('~/')) absolute = homedir() + pattern.slice(1)
  else if (pattern.startsWith('/')) absolute = (baseDir ?? cwd) + pattern
  else {
    const relative = pattern.startsWith('./') ? pattern.slice(2) : pattern
    // gitignore: a pattern with no slash (other than a trailing one) matches at any depth.
    anyDepth = !pattern.startsWith('./') && !relative.replace(/\/$/, '').includes('/')
    absolute = anyDepth ? `${cwd}/**/${relative}` : `${cwd}/${relative}`
  }
  const base = absolute.endsWith('/') ? absolute.slice(0, -1) : absolute
  // A pattern naming a folder covers everything inside it.
  return [base, `${base}/**`]
}

/** Absolute forms of a path from a tool input: as given and, when it exists, with symlinks resolved. */
export function candidatePaths(path: string, cwd: string): string[] {
  const absolute = isAbsolute(path) ? resolve(path) : resolve(cwd, path)
  try {
    const real = realpathSync(absolute)
    return real === absolute ? [absolute] : [absolute, real]
  } catch {
    // A path that does not exist yet (a file about to be written) has no real path.
    return [absolute]
  }
}

/** Whether any candidate path matches the pattern. */
export function pathMatches(
  pattern: string,
  paths: readonly string[],
  cwd: string,
  baseDir?: string,
): boolean {
  return compilePathPattern(pattern, cwd, baseDir)(paths)
}

/** The test `pathMatches` makes, built once for many paths (a search's results). */
export function compilePathPattern(
  pattern: string,
  cwd: string,
  baseDir?: string,
): (paths: readonly string[]) => boolean {
  const matchers = expandPathPattern(pattern, cwd, baseDir).map(matcherFor)
  return (paths) => matchers.some((matcher) => paths.some((path) => matcher(path)))
}
