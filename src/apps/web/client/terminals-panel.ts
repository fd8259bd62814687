// The session's terminals (the model's terminal_* tools), read-only: one card each with its
// state and program; "Watch" opens its screen, which follows every change live. Nothing
// here can type into a terminal.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import type { TerminalView } from '../types.js'

function state(view: TerminalView): string {
  if (view.status === 'running') return 'running'
  return view.exitCode !== null ? `exited ${view.exitCode}` : 'killed'
}

export function TerminalsPanel(props: { terminals: readonly TerminalView[] }): VNode | null {
  if (props.terminals.length === 0) return null
  return html`<div class="terminals" aria-label="terminals">
    ${props.terminals.map(
      (view) => html`<details class="terminal" data-terminal=${view.id}>
        <summary>
          <span class="terminal-id">${view.id}</span>
          <span class=${`badge ${view.status === 'running' ? 'running' : ''}`}>${state(view)}</span>
          <code class="terminal-command">${view.command || 'shell'}</code>
          <span class="dim">${view.cols}×${view.rows}${view.foreground ? ` · ${view.foreground}` : ''} · watch (read-only)</span>
        </summary>
        <pre class="terminal-screen">${view.screen.join('\n')}</pre>
      </details>`,
    )}
  </div>`
}
