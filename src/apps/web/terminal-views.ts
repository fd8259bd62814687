// The model's terminals as the browser sees them: each hosted session's tabs get a terminal's
// screen text whenever it changes (`terminal/updated` is throttled by the terminal service)
// and when it closes. Read-only: nothing here writes to a terminal, and reading the screen
// (`tail`) never moves the model's read position.

import type { Context } from 'cordis'
import type { TerminalInfo } from '../../terminal/index.js'
import type { LiveMessage, TerminalView } from './types.js'

/** The view of one terminal now: its state and its screen's rows (trailing blank rows cut). */
export function terminalView(ctx: Context, info: TerminalInfo): TerminalView {
  const rows = ctx.get('terminals')?.find(info.agentId, info.id)?.tail(info.rows) ?? []
  let end = rows.length
  while (end > 0 && rows[end - 1]!.trim() === '') end--
  return {
    id: info.id,
    command: info.command,
    status: info.status,
    exitCode: info.exitCode,
    cols: info.cols,
    rows: info.rows,
    foreground: info.foreground,
    screen: rows.slice(0, end).map((row) => row.trimEnd()),
  }
}

/** The terminals of session `agentId` now, oldest first. */
export function terminalViews(ctx: Context, agentId: string): TerminalView[] {
  return (ctx.get('terminals')?.list({ agentId }) ?? []).map((info) => terminalView(ctx, info))
}

/**
 * Sends terminal changes of hosted sessions to their tabs; returns the unsubscribe. `hosts`
 * says whether this server hosts the session (another process's terminals are not here).
 */
export function forwardTerminals(
  ctx: Context,
  hosts: (id: string) => boolean,
  send: (id: string, message: LiveMessage) => void,
): () => void {
  const changed = (info: TerminalInfo) => {
    if (info.agentId !== undefined && hosts(info.agentId))
      send(info.agentId, { kind: 'terminal', terminal: terminalView(ctx, info) })
  }
  const offs = [
    ctx.on('terminal/started', changed),
    ctx.on('terminal/updated', changed),
    ctx.on('terminal/closed', (info) => {
      if (info.agentId !== undefined && hosts(info.agentId))
        send(info.agentId, { kind: 'terminal-closed', id: info.id })
    }),
  ]
  return () => {
    for (const off of offs) off()
  }
}
