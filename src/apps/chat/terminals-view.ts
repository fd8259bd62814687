// The model's terminals as a person sees them in the chat: `/terminals` lists them (or
// prints one's screen), and a running `terminal_*` call shows the last lines of its screen.
// Reading a screen here never moves the model's read position.

import type { TerminalInfo } from '../../terminal/index.js'
import { formatAge } from '../shared/age.js'
import { type ChatHost, safe } from './chat-host.js'

/** Screen lines shown under a running `terminal_*` call. */
export const LIVE_TERMINAL_LINES = 3

/** The screen's rows up to its last non-blank one (a fresh REPL's screen is mostly empty below). */
function screenLines(chat: ChatHost, info: TerminalInfo): string[] {
  const terminal = chat.harness.ctx.get('terminals')?.find(chat.agent.id, info.id)
  const rows = terminal?.tail(info.rows) ?? []
  let end = rows.length
  while (end > 0 && rows[end - 1]!.trim() === '') end--
  return rows.slice(0, end).map((row) => row.trimEnd())
}

function ownTerminals(chat: ChatHost): TerminalInfo[] {
  return chat.harness.ctx.get('terminals')?.list({ agentId: chat.agent.id }) ?? []
}

/**
 * For the transcript's live part: the last lines of terminal `id`'s screen, or of the newest
 * terminal when the call names none yet (`terminal_start`).
 */
export function terminalTail(chat: ChatHost): (id: string | undefined) => string[] {
  return (id) => {
    const owned = ownTerminals(chat)
    const info = id === undefined ? owned.at(-1) : owned.find((terminal) => terminal.id === id)
    return info ? screenLines(chat, info).slice(-LIVE_TERMINAL_LINES) : []
  }
}

function state(info: TerminalInfo): string {
  if (info.status === 'running') return 'running'
  return info.exitCode !== null ? `exited ${info.exitCode}` : `killed by ${info.signal ?? 'a signal'}`
}

/** `/terminals`: this session's terminals; `/terminals ID`: that one's screen now. */
export function describeTerminals(chat: ChatHost, argument: string): void {
  const { colors } = chat
  const owned = ownTerminals(chat)
  if (argument !== '') {
    const info = owned.find((terminal) => terminal.id === argument)
    if (!info) {
      const known = owned.map((terminal) => terminal.id).join(', ')
      chat.say(
        colors.yellow(
          `/terminals: no terminal ${safe(argument)} in this session${known ? ` (${known})` : ''}`,
        ),
      )
      return
    }
    chat.say(
      colors.dim(
        `${info.id} · ${state(info)} · ${info.cols}×${info.rows} · ${safe(info.command || 'shell')}`,
      ),
    )
    const lines = screenLines(chat, info)
    if (lines.length === 0) chat.say(colors.dim('  (the screen is empty)'))
    for (const line of lines) chat.say(`  │ ${safe(line)}`)
    return
  }
  if (owned.length === 0) {
    chat.say(colors.dim('no terminals in this session (the model starts them with terminal_start)'))
    return
  }
  const now = Date.now()
  for (const info of owned) {
    const program = info.foreground ? ` · ${safe(info.foreground)}` : ''
    chat.say(
      `${info.id.padEnd(4)} ${state(info).padEnd(12)} ${`${info.cols}×${info.rows}`.padEnd(8)} ${formatAge(info.startedAt, now).padEnd(4)} ${safe(info.command || 'shell')}${colors.dim(program)}`,
    )
  }
  chat.say(colors.dim('/terminals ID prints one screen'))
}
