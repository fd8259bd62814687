// `dsh sessions export <id> --format claude-code|markdown|jsonl`: a stored session in
// another shape, read-only. `claude-code` writes Claude Code's transcript lines (one
// message per line, chained by uuid), `markdown` a readable document, `jsonl` dsh's own lines.

import { createHash } from 'node:crypto'
import { transcriptMessage } from '../../session/transcript-message.js'
import type { SessionEvent, SessionEventMap, SessionHeader } from '../../session/types.js'

export const EXPORT_FORMATS = ['claude-code', 'markdown', 'jsonl'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export function exportSession(
  header: SessionHeader,
  events: readonly SessionEvent[],
  format: ExportFormat,
): string {
  switch (format) {
    case 'jsonl':
      return [{ type: 'session', ...header }, ...events].map((line) => `${JSON.stringify(line)}\n`).join('')
    case 'claude-code':
      return claudeCodeLines(header, events)
    case 'markdown':
      return markdown(header, events)
  }
}

function claudeCodeLines(header: SessionHeader, events: readonly SessionEvent[]): string {
  let parent: string | null = null
  let text = ''
  for (const event of events) {
    const message = transcriptMessage(event)
    if (!message) continue
    const uuid = uuidFor(header.id, event.seq)
    const line = {
      parentUuid: parent,
      isSidechain: header.origin === 'subagent',
      userType: 'external',
      cwd: header.cwd ?? '',
      sessionId: header.id,
      type: message.role,
      message,
      uuid,
      timestamp: new Date(event.time).toISOString(),
    }
    text += `${JSON.stringify(line)}\n`
    parent = uuid
  }
  return text
}

/** A stable uuid-shaped id per event, so two exports of one session agree. */
function uuidFor(id: string, seq: number): string {
  const hex = createHash('sha256').update(`${id}\0${seq}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

function markdown(header: SessionHeader, events: readonly SessionEvent[]): string {
  const parts = [
    `# Session ${header.id}`,
    [
      `- created: ${new Date(header.createdAt).toISOString()}`,
      ...(header.cwd ? [`- folder: ${header.cwd}`] : []),
      ...(header.parentSession ? [`- parent: ${header.parentSession}`] : []),
    ].join('\n'),
  ]
  const calls = new Map<string, SessionEventMap['tool/call']>()
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        parts.push(`## Turn ${(event.data as SessionEventMap['turn/start']).turn}`)
        break
      case 'user/message': {
        const { text, origin } = event.data as SessionEventMap['user/message']
        const who = origin === 'hook' ? 'Hook' : origin === 'subagent' ? 'Parent agent' : 'User'
        parts.push(`**${who}:**\n\n${quote(text)}`)
        break
      }
      case 'assistant/message': {
        const { content } = (event.data as SessionEventMap['assistant/message']).message
        if (content !== '') parts.push(`**Assistant:**\n\n${content}`)
        break
      }
      case 'tool/call': {
        const call = event.data as SessionEventMap['tool/call']
        calls.set(call.callId, call)
        break
      }
      case 'tool/result': {
        const result = event.data as SessionEventMap['tool/result']
        const call = calls.get(result.callId)
        const label = call ? `${call.name} ${call.arguments}` : result.callId
        parts.push(
          `${fence(label, 'json')}\n\n<details><summary>${result.isError ? 'error' : 'result'}</summary>\n\n${fence(result.content, 'text')}\n\n</details>`,
        )
        break
      }
      case 'turn/end': {
        const { reason } = event.data as SessionEventMap['turn/end']
        if (reason !== 'completed') parts.push(`*(turn ended: ${reason})*`)
        break
      }
      default:
        break
    }
  }
  return `${parts.join('\n\n')}\n`
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n')
}

/** A code fence longer than any backtick run inside the text. */
function fence(text: string, language: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}${language}\n${text}\n${ticks}`
}
