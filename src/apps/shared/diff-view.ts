// The compact coloured diff chat and `dsh run` progress show under an edit: the unified
// diff a file tool put in its result, hunk lines coloured, cut after a few lines.

import { toTerminalText } from '../../core/terminal-text.js'
import type { Colors } from './colors.js'

/** Tools whose result ends with a unified diff (`--- path` / `+++ path` / hunks). */
export const DIFF_TOOLS: ReadonlySet<string> = new Set(['write', 'edit', 'multi_edit'])

export const DIFF_VIEW_LINES = 24

/** The diff block of an edit result, indented, or '' when the result carries none. */
export function renderDiffView(content: string, colors: Colors, maxLines = DIFF_VIEW_LINES): string {
  const lines = content.split('\n')
  const start = lines.findIndex(
    (line, index) => line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ '),
  )
  if (start < 0) return ''
  const body = lines.slice(start + 2)
  const shown = body.slice(0, maxLines).map((raw) => {
    const line = toTerminalText(raw)
    if (line.startsWith('@@')) return colors.cyan(line)
    if (line.startsWith('+')) return colors.green(line)
    if (line.startsWith('-')) return colors.red(line)
    return colors.dim(line)
  })
  if (body.length > shown.length) shown.push(colors.dim(`… +${body.length - shown.length} lines`))
  return shown.map((line) => `    ${line}\n`).join('')
}
