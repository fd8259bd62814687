// Tab completion in the input: slash commands at the start of the input, file paths
// (also after `@`) for the word under the cursor.

import { readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { graphemesOf } from './graphemes.js'

export interface Completion {
  /** Start index (in the input) of the text being replaced. */
  start: number
  /** Candidates that replace `text.slice(start, cursor)`. */
  candidates: string[]
}

/** Completes the word before `cursor` in `text`, or returns no candidates. */
export function complete(text: string, cursor: number, commands: readonly string[], cwd: string): Completion {
  const before = text.slice(0, cursor)
  if (/^\/\S*$/.test(before)) {
    const typed = before.slice(1)
    return {
      start: 0,
      candidates: commands.filter((name) => name.startsWith(typed)).map((name) => `/${name} `),
    }
  }
  const word = /(?:^|\s)@?([^\s@]*)$/.exec(before)
  const typed = word?.[1] ?? ''
  const start = cursor - typed.length
  return { start, candidates: completePath(typed, cwd) }
}

/** Entries of the folder `typed` points into whose names start with its last part. */
function completePath(typed: string, cwd: string): string[] {
  const folderPart = typed.endsWith('/')
    ? typed
    : dirname(typed) === '.' && !typed.startsWith('./')
      ? ''
      : `${dirname(typed)}/`
  const prefix = typed.slice(folderPart.length)
  const folder = resolve(
    cwd,
    folderPart === '' ? '.' : folderPart.replace(/^~(?=\/)/, process.env.HOME ?? '~'),
  )
  let entries: { name: string; isDirectory(): boolean }[]
  try {
    entries = readdirSync(folder, { withFileTypes: true })
  } catch {
    return []
  }
  return entries
    .filter(
      (entry) => entry.name.startsWith(prefix) && (prefix.startsWith('.') || !entry.name.startsWith('.')),
    )
    .map((entry) => join(folderPart, entry.name) + (entry.isDirectory() ? '/' : ' '))
    .map((candidate) => (folderPart === '' ? candidate.replace(/^\.\//, '') : candidate))
    .sort()
    .slice(0, 200)
}

/** The longest common prefix of the candidates, in whole grapheme clusters (never half an emoji). */
export function commonPrefix(candidates: readonly string[]): string {
  let prefix = ''
  for (const cluster of graphemesOf(candidates[0] ?? '')) {
    const longer = prefix + cluster
    if (!candidates.every((candidate) => candidate.startsWith(longer))) break
    prefix = longer
  }
  return prefix
}
