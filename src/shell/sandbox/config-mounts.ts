// Keeps a sandboxed command from changing the project's configuration (`.mcp.json`,
// `.claude/`, `AGENTS.md`, ...; core/project-config.ts): existing entries are bound back
// read-only over the writable project, and missing ones get a read-only placeholder, since
// a mount cannot sit on a name that does not exist. bubblewrap creates each placeholder's
// mount point in the real folder; dsh removes it again when the last call using it ends.

import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_CONFIG_ENTRIES } from '../../core/project-config.js'

/** The bwrap arguments of one call's protection, and the hand-back of its placeholders. */
export interface ConfigMounts {
  readonly args: string[]
  /** Called once the call's bwrap has exited: removes placeholders no other call still uses. */
  release(): void
}

/**
 * Placeholder paths this process had bubblewrap create, by the number of live calls using
 * each. A placeholder is never removed while a call still has it mounted: unlinking a mount
 * point from outside would silently drop that call's protection.
 */
const placeholders = new Map<string, number>()

/**
 * The read-only mounts over `root`'s configuration, to follow the writable bind of `root`.
 * `emptyFile` is an empty file the harness owns, the source of file placeholders.
 */
export function protectProjectConfig(root: string, emptyFile: string): ConfigMounts {
  const args: string[] = []
  const claimed: string[] = []
  for (const entry of PROJECT_CONFIG_ENTRIES) {
    const path = join(root, entry.name)
    if (!placeholders.has(path) && exists(path)) {
      args.push('--ro-bind', path, path)
      continue
    }
    placeholders.set(path, (placeholders.get(path) ?? 0) + 1)
    claimed.push(path)
    // A read-only empty folder or file: nothing can be created at that name or inside it.
    if (entry.kind === 'dir') args.push('--tmpfs', path, '--remount-ro', path)
    else args.push('--ro-bind', emptyFile, path)
  }
  let released = false
  return {
    args,
    release() {
      if (released) return
      released = true
      for (const path of claimed) {
        const users = (placeholders.get(path) ?? 1) - 1
        if (users > 0) {
          placeholders.set(path, users)
          continue
        }
        placeholders.delete(path)
        removeIfPlaceholder(path)
      }
    },
  }
}

/** The empty, read-only file under the harness home that file placeholders bind; made on first use. */
export function ensureEmptyFile(home: string): string {
  const folder = join(home, 'sandbox')
  const file = join(folder, 'empty')
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  try {
    closeSync(openSync(file, 'wx', 0o400))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  return file
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    // Missing (or unreadable, which bwrap could not bind either): gets a placeholder.
    return false
  }
}

/** Removes what bubblewrap left as a mount point: an empty file or an empty folder, nothing else. */
function removeIfPlaceholder(path: string): void {
  try {
    const stat = lstatSync(path)
    if (stat.isFile() && stat.size === 0) unlinkSync(path)
    else if (stat.isDirectory() && readdirSync(path).length === 0) rmdirSync(path)
  } catch {
    // Already gone, or replaced by something real meanwhile (the user's own file): keep it.
  }
}
