// The small unified diff a change shows (to the model, in chat and `dsh run` progress).

import { structuredPatch } from 'diff'

export const MAX_DIFF_LINES = 80

/** A unified diff of two LF texts with 3 lines of context, cut after MAX_DIFF_LINES lines. */
export function unifiedDiff(display: string, before: string, after: string): string {
  const patch = structuredPatch(display, display, before, after, '', '', { context: 3 })
  const lines: string[] = [`--- ${display}`, `+++ ${display}`]
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line)
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
