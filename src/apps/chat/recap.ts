// The recap a chat shows after any resume (`dsh -r ID`, `dsh -c`, `/resume`) or fork: the
// last turns (each prompt, the start of its answer, the files it changed), the compaction
// boundaries among them, and which settings the session restored.

import { isAbsolute, relative } from 'node:path'
import { formatCompactionLine } from '../../context/index.js'
import { describeSettings } from '../../session/index.js'
import type {
  ContextCompactedData,
  SessionEvent,
  SessionEventMap,
  SessionSettings,
} from '../../session/types.js'
import type { Colors } from '../shared/colors.js'
import { safe } from './chat-host.js'

/** Turns of a resumed session recapped. */
export const RECAP_TURNS = 2
/** Answer lines shown per recapped turn. */
const ANSWER_LINES = 3
/** Changed files named per recapped turn. */
const FILES_SHOWN = 5

interface RecapTurn {
  prompt: string
  answer: string
  files: string[]
  /** Compactions logged since the turn before. */
  boundaries: string[]
}

/**
 * The recap lines: the last `RECAP_TURNS` turns of `events`, then `restored: …` when the
 * session restored settings. `cwd` shortens the changed files' paths.
 */
export function recapLines(
  events: readonly SessionEvent[],
  colors: Colors,
  options: { cwd: string; restored?: SessionSettings },
): string[] {
  const turns = turnsOf(events)
  const lines: string[] = []
  const pending = turns.pending
  if (turns.list.length === 0) lines.push(colors.dim('(no turns yet)'))
  else {
    const shown = turns.list.slice(-RECAP_TURNS)
    lines.push(colors.dim(`recap: the last ${shown.length} of ${turns.list.length} turns`))
    const earlier = turns.list.slice(0, -RECAP_TURNS).flatMap((turn) => turn.boundaries)
    if (earlier.length > 0) lines.push(colors.magenta(`── ${earlier.at(-1)} (earlier) ──`))
    for (const turn of shown) lines.push(...turnLines(turn, colors, options.cwd))
  }
  for (const boundary of pending) lines.push(colors.magenta(`── ${boundary} ──`))
  const restored = options.restored ? describeSettings(options.restored) : ''
  if (restored !== '') lines.push(colors.dim(`restored: ${safe(restored)}`))
  return lines
}

function turnLines(turn: RecapTurn, colors: Colors, cwd: string): string[] {
  const lines: string[] = []
  for (const boundary of turn.boundaries) lines.push(colors.magenta(`── ${boundary} ──`))
  lines.push(`${colors.bold(colors.green('> '))}${safe(firstLine(turn.prompt))}`)
  const answer = turn.answer.split('\n').filter((line) => line.trim() !== '')
  for (const line of answer.slice(0, ANSWER_LINES)) lines.push(`  ${safe(line)}`)
  if (answer.length > ANSWER_LINES) lines.push(colors.dim(`  … +${answer.length - ANSWER_LINES} lines`))
  if (turn.files.length > 0) {
    const named = turn.files.slice(0, FILES_SHOWN).map((path) => shortPath(path, cwd))
    const more = turn.files.length > FILES_SHOWN ? ` +${turn.files.length - FILES_SHOWN} more` : ''
    lines.push(colors.dim(`  files changed: ${safe(named.join(', '))}${more}`))
  }
  return lines
}

/** The turns of the log, each with its prompt, last answer and changed files. */
function turnsOf(events: readonly SessionEvent[]): { list: RecapTurn[]; pending: string[] } {
  const list: RecapTurn[] = []
  let pending: string[] = []
  let current: RecapTurn | undefined
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        current = { prompt: '', answer: '', files: [], boundaries: pending }
        list.push(current)
        pending = []
        break
      case 'user/message': {
        const text = (event.data as { text?: unknown }).text
        if (current && current.prompt === '' && typeof text === 'string') current.prompt = text
        break
      }
      case 'assistant/message': {
        const content = (event.data as { message?: { content?: unknown } }).message?.content
        if (current && typeof content === 'string' && content.trim() !== '') current.answer = content
        break
      }
      case 'file/change': {
        const { path } = event.data as SessionEventMap['file/change']
        if (current && typeof path === 'string' && !current.files.includes(path)) current.files.push(path)
        break
      }
      case 'context/compacted':
        pending.push(formatCompactionLine(event.data as ContextCompactedData))
        break
    }
  }
  return { list, pending }
}

function shortPath(path: string, cwd: string): string {
  const inside = relative(cwd, path)
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path
}

function firstLine(text: string): string {
  const lines = text.split('\n')
  return lines.length > 1 ? `${lines[0]} …` : text
}
