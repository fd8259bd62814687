// The one rule for "which project is this folder in", shared by hook discovery,
// AGENTS.md, skills, commands, `.mcp.json` and permission settings.

import { statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, resolve } from 'node:path'

/** Files or folders whose presence marks a project root. */
export const PROJECT_MARKERS = ['.git', '.dsh'] as const

/**
 * The nearest folder at or above `cwd` that holds `.git` or `.dsh`, never the user's home
 * folder itself (`~/.dsh` is the harness home, `~/.claude` user settings, not a project);
 * `cwd` itself when there is none. Synchronous: a few `stat` calls.
 */
export function findProjectRoot(cwd: string, options: { homeDir?: string } = {}): string {
  const start = resolve(cwd)
  const home = resolve(options.homeDir ?? homedir())
  let folder = start
  for (;;) {
    if (folder !== home && PROJECT_MARKERS.some((marker) => exists(resolve(folder, marker)))) return folder
    const parent = dirname(folder)
    if (parent === folder) return start
    folder = parent
  }
}

/** The folders from `root` down to `cwd`, root first (for nested AGENTS.md and the like). */
export function foldersFromRoot(root: string, cwd: string): string[] {
  const folders: string[] = []
  let folder = resolve(cwd)
  const top = resolve(root)
  for (;;) {
    folders.unshift(folder)
    if (folder === top) return folders
    const parent = dirname(folder)
    if (parent === folder) return [resolve(cwd)] // cwd is not below root
    folder = parent
  }
}

function exists(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    // Missing or unreadable: not a marker.
    return false
  }
}
