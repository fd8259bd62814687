// Plain-text views of stored sessions: the `sessions list` table and the readable
// transcript of `sessions show`.

import { describeImage } from '../../attachments/describe.js'
import { formatCompactionLine } from '../../context/index.js'
import { toTerminalId, toTerminalText } from '../../core/terminal-text.js'
import type { ImageRef } from '../../llm/types.js'
import type { SessionEvent, SessionEventMap, SessionHeader } from '../../session/types.js'
import { DEFAULT_PRICE_TABLE, deriveUsage, formatUsageLine, type PriceTable } from '../../usage/index.js'
import { type Colors, clip, describeToolCall } from '../shared/render.js'

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function formatTable(rows: string[][], colors: Colors, header: string[]): string {
  const all = [header, ...rows]
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)))
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd()
  return [colors.dim(line(header)), ...rows.map(line)].join('\n')
}

const RESULT_PREVIEW_LINES = 6

/** A readable transcript: header facts, then each turn with prompts, tool calls, results and answers. */
export function formatTranscript(
  header: SessionHeader,
  events: readonly SessionEvent[],
  colors: Colors,
  location: string,
  table: PriceTable = DEFAULT_PRICE_TABLE,
): string {
  const usage = deriveUsage(events, table)
  const out: string[] = []
  out.push(colors.bold(`session ${toTerminalId(header.id)}`))
  out.push(colors.dim(`  created  ${new Date(header.createdAt).toISOString()}`))
  if (header.cwd !== undefined) out.push(colors.dim(`  folder   ${safe(header.cwd)}`))
  if (header.parentSession !== undefined) {
    const origin = header.origin === 'subagent' ? 'sub-agent of' : 'forked from'
    out.push(
      colors.dim(`  ${origin} ${safe(header.parentSession)} (${header.seedLength ?? 0} events copied)`),
    )
  }
  out.push(colors.dim(`  log      ${safe(location)}`))
  out.push(colors.dim(`  usage    ${formatUsageLine(usage.session, table.currency)}`))
  // A fork's copied turns were paid for in its parent: shown apart, not in the line above.
  if (usage.inherited)
    out.push(
      colors.dim(`  inherited from the parent's turns: ${formatUsageLine(usage.inherited, table.currency)}`),
    )
  for (const event of events) {
    const line = formatEvent(event, colors)
    if (line !== undefined) out.push(line)
    if (event.type === 'turn/end') {
      const turn = usage.turns.get(data<'turn/end'>(event).turn)
      if (turn) out.push(colors.dim(`  usage ${formatUsageLine(turn, table.currency)}`))
    }
  }
  const open = openTurn(events)
  if (open !== undefined) {
    // Read-only: the turn is shown as stored, never closed here (resuming closes it).
    out.push(colors.yellow(`(turn ${open} open: still running, or interrupted and not yet resumed)`))
  }
  return `${out.join('\n')}\n`
}

/** `[image shot.png 1280×800 214 KB]` lines for a message's images (names made terminal-safe). */
function imageLines(images: readonly ImageRef[] | undefined, colors: Colors): string {
  if (!images?.length) return ''
  return images.map((ref) => `\n  ${colors.cyan(describeImage({ ...ref, name: safe(ref.name) }))}`).join('')
}

/** One event as transcript lines, or undefined for events a reader does not need to see. */
export function formatEvent(event: SessionEvent, colors: Colors): string | undefined {
  switch (event.type) {
    case 'turn/start':
      return `\n${colors.dim(`── turn ${data<'turn/start'>(event).turn} ──`)}`
    case 'user/message': {
      const { text, origin, images } = data<'user/message'>(event)
      const who = origin === 'hook' ? 'hook' : origin === 'subagent' ? 'parent' : 'user'
      return `${colors.green(`${who}>`)} ${indent(safe(text))}${imageLines(images, colors)}`
    }
    case 'assistant/message': {
      const { message } = data<'assistant/message'>(event)
      const parts: string[] = []
      if (message.reasoning) parts.push(colors.dim(`(thinking) ${safe(clip(message.reasoning, 200))}`))
      if (message.content.trim() !== '') parts.push(safe(message.content.trimEnd()))
      return parts.length > 0 ? parts.join('\n') : undefined
    }
    case 'tool/call': {
      const call = data<'tool/call'>(event)
      return `${colors.cyan('●')} ${safe(describeToolCall(call.name, call.arguments))}`
    }
    case 'tool/result': {
      const result = data<'tool/result'>(event)
      const lines = safe(result.content.trimEnd()).split('\n')
      const shown = previewLines(lines)
      const body = shown.map((line, index) => `${index === 0 ? '  ⎿ ' : '    '}${line}`).join('\n')
      return (result.isError ? colors.red(body) : colors.dim(body)) + imageLines(result.images, colors)
    }
    case 'hook/result': {
      const hook = data<'hook/result'>(event)
      return colors.dim(
        `  hook ${hook.dialect} ${hook.event}: ${hook.decision} (${safe(clip(hook.command, 60))})`,
      )
    }
    case 'context/added':
      return colors.dim(`  + context from ${clip(data<'context/added'>(event).source, 200)}`)
    case 'context/compacted':
      return compactionBlock(data<'context/compacted'>(event), colors)
    case 'turn/end': {
      const end = data<'turn/end'>(event)
      const text = `(turn ${end.turn} ${end.reason}${end.error ? `: ${safe(clip(end.error, 200))}` : ''})`
      return end.reason === 'completed' ? colors.dim(text) : colors.yellow(text)
    }
    default:
      return undefined
  }
}

/**
 * The lines of a tool result a reader sees: the first RESULT_PREVIEW_LINES, except that a
 * terminal reading (terminal_start, terminal_read) shows its whole screen, which is
 * what the model saw at that moment; only the scrollback before it is cut.
 */
function previewLines(lines: string[]): string[] {
  const screenAt = /^(?:started terminal t\d+.*|\[terminal t\d+: .*)$/.test(lines[0] ?? '')
    ? lines.indexOf('[screen]')
    : -1
  const head = screenAt < 0 ? lines : lines.slice(0, screenAt)
  const shown = head.slice(0, RESULT_PREVIEW_LINES)
  if (head.length > shown.length) shown.push(`… ${head.length - shown.length} more lines`)
  return screenAt < 0 ? shown : [...shown, ...lines.slice(screenAt)]
}

/**
 * A compaction boundary: the marked line (what started it, what was pruned), then the
 * summary that stands for everything before it, which the model sees from here on.
 */
function compactionBlock(boundary: SessionEventMap['context/compacted'], colors: Colors): string {
  const facts = [
    boundary.trigger === 'manual' ? 'manual' : `auto${boundary.reason ? `, ${boundary.reason}` : ''}`,
  ]
  if (boundary.pruned?.length)
    facts.push(`${boundary.pruned.length} tool output${boundary.pruned.length === 1 ? '' : 's'} pruned`)
  if (boundary.instructions) facts.push(`instructions: ${safe(clip(boundary.instructions, 200))}`)
  const lines = [colors.magenta(`── ${formatCompactionLine(boundary)} (${facts.join('; ')}) ──`)]
  if (boundary.summary !== undefined) {
    lines.push(colors.dim('  summary the model sees from here on:'))
    for (const line of safe(boundary.summary.trimEnd()).split('\n')) lines.push(`  │ ${line}`)
  }
  return lines.join('\n')
}

/** The number of the turn left open at the end of `events`, if any. */
function openTurn(events: readonly SessionEvent[]): number | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/end') return undefined
    if (event.type === 'turn/start') return data<'turn/start'>(event).turn
  }
  return undefined
}

function data<K extends keyof SessionEventMap>(event: SessionEvent): SessionEventMap[K] {
  return event.data as SessionEventMap[K]
}

/** Stored text as the terminal may show it: escape sequences appear escaped. */
function safe(text: string): string {
  return toTerminalText(text, { keepTabs: false })
}

function indent(text: string): string {
  return text.trimEnd().replace(/\n/g, '\n  ')
}
