// Renders terminal readings and lists as the text the model (and `dsh sessions show`)
// sees: a status line, the new scrollback, the screen, and one marker line per notable fact.

import type { TerminalInfo, TerminalReading } from '../../terminal/index.js'

export function statusText(info: TerminalInfo): string {
  if (info.status === 'running') return 'running'
  if (info.signal) return `exited (killed by signal ${info.signal})`
  return `exited (exit code ${info.exitCode})`
}

export function renderReading(reading: TerminalReading, waitFor?: string): string {
  const { info, screen } = reading
  const lines = [
    `[terminal ${info.id}: ${statusText(info)}${info.foreground ? ` · ${info.foreground}` : ''} · ${screen.cols}x${screen.rows} · cursor row ${screen.cursor.row + 1}, col ${screen.cursor.col + 1}]`,
  ]
  if (screen.scrolled.length > 0 || reading.omittedLines > 0 || screen.dropped) {
    const notes = [`${screen.scrolled.length} line${screen.scrolled.length === 1 ? '' : 's'}`]
    if (reading.omittedLines > 0) notes.push(`${reading.omittedLines} earlier lines not shown`)
    if (screen.dropped) notes.push('older lines dropped from the scrollback')
    if (reading.transcriptPath) notes.push(`full output: ${reading.transcriptPath}`)
    lines.push(`[new scrollback: ${notes.join('; ')}]`, ...screen.scrolled)
  }
  lines.push('[screen]', ...(screen.lines.length > 0 ? screen.lines : ['(blank)']))
  if (reading.outcome === 'timeout') {
    lines.push(
      waitFor !== undefined
        ? `[timed out after ${reading.waitedMs} ms waiting for ${JSON.stringify(waitFor)}]`
        : `[output did not settle within ${reading.waitedMs} ms; shown as it is now]`,
    )
  } else if (reading.outcome === 'cancelled') lines.push('[read cancelled]')
  if (info.status === 'exited') lines.push(`[${statusText(info)}]`)
  return lines.join('\n')
}

export function renderList(terminals: readonly TerminalInfo[]): string {
  if (terminals.length === 0) return 'no terminals'
  return terminals
    .map(
      (info) =>
        `${info.id}  ${statusText(info)}  ${info.foreground || '-'}  ${info.cols}x${info.rows}  ${info.command || '(shell)'}`,
    )
    .join('\n')
}
