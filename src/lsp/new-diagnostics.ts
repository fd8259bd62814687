// Which diagnostics an edit introduced: an old and a new one are the same when they agree on
// severity, code and message and sit at the same place once the edit's line shift is
// accounted for; inside the edited lines they are paired in order, nearest first.

import { byPlace } from './format.js'
import type { LspDiagnostic } from './types.js'

/** The file's text around the change; `before` undefined when unknown (every line counts as edited). */
export interface EditTexts {
  readonly before?: string | undefined
  readonly after: string
}

/** Lines [start, oldEnd) of the old text became lines [start, newEnd) of the new one (0-based). */
interface EditedLines {
  readonly start: number
  readonly oldEnd: number
  readonly newEnd: number
}

const UNCHANGED: EditedLines = { start: Infinity, oldEnd: Infinity, newEnd: Infinity }
const UNKNOWN: EditedLines = { start: 0, oldEnd: Infinity, newEnd: Infinity }

/**
 * Diagnostics in `after` that were not in `before`. Without `texts` the file did not change:
 * an old diagnostic matches only at its own place. With them, old diagnostics above the
 * edited lines keep their place, those below move by the lines the edit added or removed,
 * and those on edited lines pair with new ones there in order, nearest first (an error on a
 * line the edit touched is old while one of its kind remains there). Counted, so a second
 * identical error is new; linear but for sorting the edited lines' diagnostics.
 */
export function newOnes(
  before: readonly LspDiagnostic[],
  after: readonly LspDiagnostic[],
  texts?: EditTexts,
): LspDiagnostic[] {
  const edited =
    texts === undefined
      ? UNCHANGED
      : texts.before === undefined
        ? UNKNOWN
        : editedLines(texts.before, texts.after)
  const shift = edited.newEnd - edited.oldEnd
  const kind = (d: LspDiagnostic) => `${d.severity}\0${d.code ?? ''}\0${d.message}`
  const place = (d: LspDiagnostic, line: number) => `${kind(d)}\0${line}\0${d.column}`
  // Old ones outside the edited lines, by kind and the place they have after the edit.
  const kept = new Map<string, number>()
  // Old and new ones on edited lines, by kind.
  const oldEdited = new Map<string, LspDiagnostic[]>()
  const newEdited = new Map<string, number[]>()
  for (const d of before) {
    const line = d.line - 1
    if (line >= edited.start && line < edited.oldEnd) listIn(oldEdited, kind(d)).push(d)
    else {
      const at = place(d, line < edited.start ? d.line : d.line + shift)
      kept.set(at, (kept.get(at) ?? 0) + 1)
    }
  }
  const fresh = new Set<number>()
  after.forEach((d, index) => {
    const line = d.line - 1
    const at = place(d, d.line)
    const count = kept.get(at) ?? 0
    if (count > 0) kept.set(at, count - 1)
    else if (line >= edited.start && line < edited.newEnd) listIn(newEdited, kind(d)).push(index)
    else fresh.add(index)
  })
  for (const [key, indexes] of newEdited)
    for (const index of unpaired(oldEdited.get(key) ?? [], indexes, after)) fresh.add(index)
  return after.filter((_, index) => fresh.has(index))
}

/** The one block of lines that differs between two texts: past their common first and last lines. */
function editedLines(before: string, after: string): EditedLines {
  const a = before.split('\n')
  const b = after.split('\n')
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1
  let tail = 0
  while (
    tail < a.length - start &&
    tail < b.length - start &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail += 1
  return { start, oldEnd: a.length - tail, newEnd: b.length - tail }
}

/**
 * The new diagnostics (indexes into `after`) left without an old partner when both lists are
 * paired in order; where one list is longer, whichever of its next two is farther is skipped.
 */
function unpaired(
  olds: readonly LspDiagnostic[],
  indexes: readonly number[],
  after: readonly LspDiagnostic[],
) {
  const was = [...olds].sort(byPlace)
  const now = [...indexes].sort((x, y) => byPlace(after[x]!, after[y]!))
  const left: number[] = []
  let i = 0
  let j = 0
  while (i < was.length && j < now.length) {
    const spare = was.length - i - (now.length - j)
    if (spare > 0 && closer(was[i + 1]!, after[now[j]!]!, was[i]!)) i += 1
    else if (spare < 0 && closer(after[now[j + 1]!]!, was[i]!, after[now[j]!]!)) left.push(now[j++]!)
    else {
      i += 1
      j += 1
    }
  }
  return [...left, ...now.slice(j)]
}

/** Whether `a` is nearer to `to` than `b` is: by lines, then by columns. */
function closer(a: LspDiagnostic, to: LspDiagnostic, b: LspDiagnostic): boolean {
  const lines = Math.abs(a.line - to.line) - Math.abs(b.line - to.line)
  return lines !== 0 ? lines < 0 : Math.abs(a.column - to.column) < Math.abs(b.column - to.column)
}

function listIn<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key)
  if (!list) {
    list = []
    map.set(key, list)
  }
  return list
}
