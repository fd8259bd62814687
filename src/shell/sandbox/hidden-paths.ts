// The one definition of what a sandbox hides from the model: the harness home and the
// session store when it lives elsewhere, except the call's own readable files. bwrap.ts
// mounts over these; the file tools (src/tools/fs/) refuse them by the same rule.

import { realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'

/** Where the session store keeps its files, when outside the home (config `persistence`). */
export interface SessionStoreFiles {
  /** JSONL root folder. */
  root?: string
  /** SQLite database file (its `-wal`, `-shm` and `-journal` companions are hidden too). */
  file?: string
}

/** True when `path` is `folder` or below it (lexically; resolve symlinks first). */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(resolve(folder), resolve(path))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * The paths hidden from model-run code under a sandbox: the whole harness home (sessions,
 * spill, config, trust store, file history), and the session store's root or database
 * file when configured outside it. Absolute, without duplicates or paths inside another.
 */
export function harnessHiddenPaths(home: string, store: SessionStoreFiles = {}): string[] {
  const paths = [resolve(home)]
  if (store.root !== undefined) paths.push(resolve(store.root))
  if (store.file !== undefined) {
    const file = resolve(store.file)
    paths.push(file, `${file}-wal`, `${file}-shm`, `${file}-journal`)
  }
  const unique = [...new Set(paths)]
  return unique.filter((path) => !unique.some((other) => other !== path && isInside(path, other)))
}

/** What a session's call may still read of the hidden paths: its log, its spill folder, the home's skills and commands. */
export function callReadablePaths(
  home: string,
  own: { spillDir?: string | undefined; sessionLog?: string | undefined },
): string[] {
  return [
    ...(own.spillDir !== undefined ? [own.spillDir] : []),
    ...(own.sessionLog !== undefined ? [own.sessionLog] : []),
    join(home, 'skills'),
    join(home, 'commands'),
  ]
}

/** The real path of `path`, or of its nearest existing ancestor plus the rest. */
export function realPathOrAncestor(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // Missing: a file about to be created; judge it by the folder it would land in.
    const parent = resolve(path, '..')
    if (parent === path) return path
    return resolve(realPathOrAncestor(parent), relative(parent, path))
  }
}

/**
 * A test of whether a path lies in a hidden path and not in one of `readable` (readable
 * exceptions count for reading only: pass none for a write). The hidden and readable
 * paths are taken both as written and after following symlinks, once.
 */
export function hiddenPathTest(
  hidden: readonly string[],
  readable: readonly string[] = [],
): {
  /** `path` judged as written and after following its symlinks. */
  hides(path: string): boolean
  /** Judges the given views of one path (as written, real) without touching the disk. */
  hidesAny(views: readonly string[]): boolean
} {
  const roots = hidden.flatMap((root) => [resolve(root), realPathOrAncestor(root)])
  const allowed = readable.flatMap((folder) => [resolve(folder), realPathOrAncestor(folder)])
  // Each view that lands in a hidden path must land in an allowed folder too: a symlink
  // in the spill folder pointing at another session's log stays hidden.
  const hidesAny = (views: readonly string[]) =>
    views.some(
      (view) =>
        roots.some((root) => isInside(view, root)) && !allowed.some((folder) => isInside(view, folder)),
    )
  return { hidesAny, hides: (path) => hidesAny([resolve(path), realPathOrAncestor(path)]) }
}
