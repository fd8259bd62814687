// Validation of a storage location (the JSONL root, the SQLite file) before anything
// is created there: kernel pseudo file systems are refused in one line, because
// `mkdir -p` under /proc never returns, and a path through a file is named plainly.

import { statSync } from 'node:fs'
import { dirname, isAbsolute, resolve, sep } from 'node:path'
import { DshError } from '../core/errors.js'
import { PersistenceErrorCode } from './errors.js'

/** Kernel file systems that cannot hold sessions. */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev']

/**
 * Throws PERSISTENCE_BAD_PATH (user-facing, naming `what` and the path) when `path` is
 * not absolute, lies under /proc, /sys or /dev, or has a file where a folder must be.
 * `kind` says whether `path` itself is a folder or a file to be created.
 */
export function assertStoragePath(path: string, what: string, kind: 'folder' | 'file'): void {
  const fail = (why: string) => {
    throw new DshError(`${what} ${path} cannot hold sessions: ${why}`, PersistenceErrorCode.BadPath, {
      userFacing: true,
    })
  }
  if (!isAbsolute(path)) fail('it is not an absolute path')
  const normalized = resolve(path)
  for (const root of PSEUDO_ROOTS) {
    if (normalized === root || normalized.startsWith(root + sep))
      fail(`it is inside ${root}, a kernel file system`)
  }
  // The nearest existing ancestor must be a folder (the path itself may be the file).
  let current = normalized
  for (;;) {
    let info: ReturnType<typeof statSync>
    try {
      info = statSync(current, { throwIfNoEntry: false })
    } catch (error) {
      // ENOTDIR: an ancestor is a file; keep climbing to name it. Anything else is reported.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') fail((error as Error).message)
      info = undefined
    }
    if (info) {
      const mustBeFolder = !(kind === 'file' && current === normalized)
      if (mustBeFolder && !info.isDirectory()) fail(`${current} is not a folder`)
      if (!mustBeFolder && info.isDirectory()) fail('it is a folder')
      return
    }
    const parent = dirname(current)
    if (parent === current) return
    current = parent
  }
}
