// The small unified diff a change shows (to the model, in chat and `dsh run` progress).

import { structuredPatch } from 'diff'

export const MAX_DIFF_LINES = 80

const CONTEXT_LINES = 3

/** Lines in `text` before `index` (the number of newlines). */
function linesBefore(text: string, index: number): number {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) count += 1
  return count
}

/** Start offset of line `line` (0-based) of `text`. */
function lineOffset(text: string, line: number): number {
  let offset = 0
  for (let i = 0; i < line; i++) offset = text.indexOf('\n', offset) + 1
  return offset
}

/** One hunk as Claude Code's `structuredPatch` carries it: lines prefixed ' ', '-' or '+'. */
export interface PatchHunk {
  oldStart: number
  oldLines: number
  newStart: number
  newLines: number
  lines: string[]
}

/**
 * The hunks between two LF texts with 3 lines of context. Only the region between the
 * common prefix and suffix is diffed, so a small edit of a large file costs little.
 */
export function patchHunks(before: string, after: string): PatchHunk[] {
  let prefix = 0
  const shorter = Math.min(before.length, after.length)
  while (prefix < shorter && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix += 1
  let suffix = 0
  while (
    suffix < shorter - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  )
    suffix += 1
  // Whole lines around the change, with room for the context lines.
  const skipped = Math.max(0, linesBefore(before, prefix) - CONTEXT_LINES)
  const start = lineOffset(before, skipped)
  const tailBefore = before.length - suffix
  const tailAfter = after.length - suffix
  const endOf = (text: string, from: number) => {
    let end = from
    for (let i = 0; i <= CONTEXT_LINES && end !== -1 && end < text.length; i++)
      end = text.indexOf('\n', end + (i === 0 ? 0 : 1))
    return end === -1 ? text.length : end + 1
  }
  const windowBefore = before.slice(start, Math.min(before.length, endOf(before, tailBefore)))
  const windowAfter = after.slice(start, Math.min(after.length, endOf(after, tailAfter)))
  const patch = structuredPatch('', '', windowBefore, windowAfter, '', '', { context: CONTEXT_LINES })
  return patch.hunks.map((hunk) => ({
    oldStart: hunk.oldStart + skipped,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart + skipped,
    newLines: hunk.newLines,
    lines: hunk.lines.filter((line) => !line.startsWith('\\')),
  }))
}

/** A unified diff of two LF texts with 3 lines of context, cut after MAX_DIFF_LINES lines. */
export function unifiedDiff(display: string, before: string, after: string): string {
  return formatDiff(display, patchHunks(before, after))
}

/** {@link unifiedDiff} of hunks already computed. */
export function formatDiff(display: string, hunks: readonly PatchHunk[]): string {
  const lines: string[] = [`--- ${display}`, `+++ ${display}`]
  for (const hunk of hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)
    lines.push(...hunk.lines)
  }
  if (lines.length <= MAX_DIFF_LINES + 2) return lines.join('\n')
  const shown = lines.slice(0, MAX_DIFF_LINES + 2)
  return `${shown.join('\n')}\n[diff cut: ${lines.length - shown.length} more lines]`
}

/** Lines added and removed in a unified diff made by {@link unifiedDiff}. */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added += 1
    else if (line.startsWith('-') && !line.startsWith('---')) removed += 1
  }
  return { added, removed }
}
