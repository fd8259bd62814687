// The JavaScript searcher, used when no `rg` is installed: the same .gitignore-aware walk as
// `glob`, JavaScript regular expressions, binary files skipped.

import { readFile } from 'node:fs/promises'
import { dirname, extname } from 'node:path'
import {
  FILE_TYPES,
  type GrepFileResult,
  type GrepLine,
  type GrepOutcome,
  type GrepQuery,
  globFilter,
} from './grep-types.js'
import { looksBinary } from './text-file.js'
import { ignoreCheckerFor, walkFiles } from './walk.js'

const READ_CONCURRENCY = 64

export async function searchWithJavaScript(query: GrepQuery): Promise<GrepOutcome> {
  let regex: RegExp
  try {
    regex = new RegExp(query.pattern, `${query.ignoreCase ? 'i' : ''}${query.multiline ? 'gs' : 'm'}`)
  } catch (error) {
    throw new Error(`regex parse error: ${(error as Error).message}`)
  }
  const fileFilter = filterFor(query)
  const paths: string[] = []
  const keep = query.keep ?? (() => true)
  if (query.targetIsFile) {
    const ignored = (await ignoreCheckerFor(dirname(query.target)))(query.target, false)
    if (!ignored && keep(query.target)) paths.push(query.target)
  } else {
    await walkFiles(query.target, {
      signal: query.signal,
      onFile(entry) {
        // A file the model may not see is never read: nothing it holds can change the answer.
        if (fileFilter(entry.relative) && keep(entry.path)) paths.push(entry.path)
        return undefined
      },
    })
  }
  const warnings: string[] = []
  const results: (GrepFileResult | undefined)[] = new Array(paths.length)
  let next = 0
  const worker = async () => {
    while (next < paths.length && !query.signal.aborted) {
      const index = next++
      const path = paths[index]!
      try {
        results[index] = searchFile(path, await readFile(path), regex, query)
      } catch (error) {
        warnings.push(`${path}: ${(error as Error).message}`)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker))
  return { files: results.filter((r): r is GrepFileResult => r !== undefined), warnings, engine: 'js' }
}

function filterFor(query: GrepQuery): (relative: string) => boolean {
  const checks: ((relative: string) => boolean)[] = []
  if (query.glob) {
    // ripgrep: a glob without a slash matches the file name at any depth.
    checks.push(globFilter(query.glob))
  }
  if (query.type) {
    const extensions = FILE_TYPES[query.type]
    if (!extensions) {
      throw new Error(
        `unknown file type ${JSON.stringify(query.type)}; known: ${Object.keys(FILE_TYPES).join(', ')}`,
      )
    }
    const set = new Set(extensions.map((ext) => `.${ext}`))
    checks.push((relative) => set.has(extname(relative)))
  }
  return (relative) => checks.every((check) => check(relative))
}

function searchFile(
  path: string,
  bytes: Buffer,
  regex: RegExp,
  query: GrepQuery,
): GrepFileResult | undefined {
  if (looksBinary(bytes)) return undefined
  const text = bytes.toString('utf8')
  regex.lastIndex = 0
  // Whole-text test first: most files do not match at all.
  if (!regex.test(text)) return undefined
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const matching = query.multiline ? multilineMatches(text, regex) : lineMatches(lines, regex)
  if (matching.size === 0) return undefined
  if (query.mode !== 'content') return { path, count: matching.size, lines: [] }
  const shown = new Map<number, boolean>()
  for (const line of matching) {
    for (let i = Math.max(1, line - query.before); i <= Math.min(lines.length, line + query.after); i++) {
      if (!shown.has(i)) shown.set(i, false)
    }
    shown.set(line, true)
  }
  const out: GrepLine[] = [...shown.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([line, match]) => ({ line, match, text: lines[line - 1]!.replace(/\r$/, '') }))
  return { path, count: matching.size, lines: out }
}

function lineMatches(lines: readonly string[], regex: RegExp): Set<number> {
  const found = new Set<number>()
  for (const [index, line] of lines.entries()) {
    regex.lastIndex = 0
    if (regex.test(line)) found.add(index + 1)
  }
  return found
}

function multilineMatches(text: string, regex: RegExp): Set<number> {
  const found = new Set<number>()
  const starts = [0]
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
  const lineOf = (offset: number) => {
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (starts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return low + 1
  }
  regex.lastIndex = 0
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const end = match.index + Math.max(match[0].length - 1, 0)
    for (let line = lineOf(match.index); line <= lineOf(end); line++) found.add(line)
    if (match[0].length === 0) regex.lastIndex += 1
  }
  return found
}
