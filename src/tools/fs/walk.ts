// A .gitignore-aware walk of a folder tree, as git and ripgrep see it: `.gitignore` files
// at every level (and those between the project root and the start folder) apply, `.git`
// is skipped, hidden files are included, symbolic links are not followed.

import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { findProjectRoot, foldersFromRoot } from '../../core/project-root.js'

interface IgnoreLayer {
  readonly base: string
  readonly rules: Ignore
}

export interface WalkEntry {
  /** Absolute path. */
  readonly path: string
  /** Path relative to the start folder, `/`-separated. */
  readonly relative: string
}

export interface WalkOptions {
  /** Called for every file that is not ignored. Return false to stop the walk. */
  onFile(entry: WalkEntry): boolean | undefined
  /** Optional folder filter (relative path): false skips the folder. */
  enterFolder?(relative: string): boolean
  signal?: AbortSignal
}

async function loadLayer(folder: string): Promise<IgnoreLayer | undefined> {
  let text: string
  try {
    text = await readFile(join(folder, '.gitignore'), 'utf8')
  } catch {
    // No .gitignore here (or unreadable): nothing to add.
    return undefined
  }
  return { base: folder, rules: ignore().add(text) }
}

/** True when the layers (outermost first) ignore `path`; a deeper negation can re-include it. */
function ignoredBy(layers: readonly IgnoreLayer[], path: string, isFolder: boolean): boolean {
  let ignored = false
  for (const layer of layers) {
    const rel = relative(layer.base, path).split(sep).join('/')
    if (rel === '' || rel.startsWith('..')) continue
    const result = layer.rules.test(isFolder ? `${rel}/` : rel)
    if (result.ignored) ignored = true
    else if (result.unignored) ignored = false
  }
  return ignored
}

/** The ignore layers that apply at `start`: the project root's down to `start`'s parent. */
async function outerLayers(start: string): Promise<IgnoreLayer[]> {
  const root = findProjectRoot(start)
  const folders = foldersFromRoot(root, start).slice(0, -1)
  const layers = await Promise.all(folders.map(loadLayer))
  return layers.filter((layer): layer is IgnoreLayer => layer !== undefined)
}

/** Walks `start` (a folder), calling `onFile` for each file not ignored. Unreadable folders are skipped. */
export async function walkFiles(start: string, options: WalkOptions): Promise<{ stopped: boolean }> {
  const state = { stopped: false }
  const visit = async (folder: string, rel: string, layers: readonly IgnoreLayer[]): Promise<void> => {
    if (state.stopped || options.signal?.aborted) return
    let entries: Dirent[]
    try {
      entries = await readdir(folder, { withFileTypes: true })
    } catch {
      // An unreadable folder is left out, as git and ripgrep do.
      return
    }
    const own = entries.some((entry) => entry.name === '.gitignore' && entry.isFile())
      ? await loadLayer(folder)
      : undefined
    const here = own ? [...layers, own] : layers
    const folders: Promise<void>[] = []
    for (const entry of entries) {
      if (state.stopped) break
      const path = join(folder, entry.name)
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (entry.isDirectory()) {
        if (entry.name === '.git' || ignoredBy(here, path, true)) continue
        if (options.enterFolder && !options.enterFolder(childRel)) continue
        folders.push(visit(path, childRel, here))
      } else if (entry.isFile()) {
        if (ignoredBy(here, path, false)) continue
        if (options.onFile({ path, relative: childRel }) === false) state.stopped = true
      }
    }
    await Promise.all(folders)
  }
  await visit(start, '', await outerLayers(start))
  return state
}

/** A test of whether an entry of `folder` is ignored by the .gitignore files that apply there. */
export async function ignoreCheckerFor(
  folder: string,
): Promise<(path: string, isFolder: boolean) => boolean> {
  const own = await loadLayer(folder)
  const layers = [...(await outerLayers(folder)), ...(own ? [own] : [])]
  return (path, isFolder) => ignoredBy(layers, path, isFolder)
}
