// `dsh sessions export <id> --format claude-code|markdown|jsonl`: a stored session in
// another shape, read-only. `claude-code` writes Claude Code's transcript lines
// (export-claude.ts), `markdown` a readable document, `jsonl` dsh's own lines.

import { describeImage } from '../../attachments/describe.js'
import { formatCompactionLine } from '../../context/index.js'
import type { ImageRef } from '../../llm/types.js'
import type { SessionEvent, SessionEventMap, SessionHeader } from '../../session/types.js'
import { type ClaudeExportOptions, claudeCodeTranscript } from './export-claude.js'

export const EXPORT_FORMATS = ['claude-code', 'markdown', 'jsonl'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** `images`: the bytes of the images the events name, by SHA-256 (claude-code writes them inline). */
export function exportSession(
  header: SessionHeader,
  events: readonly SessionEvent[],
  format: ExportFormat,
  options: ClaudeExportOptions = {},
): string {
  switch (format) {
    case 'jsonl':
      return [{ type: 'session', ...header }, ...events].map((line) => `${JSON.stringify(line)}\n`).join('')
    case 'claude-code':
      return claudeCodeTranscript({ header, events }, options)
    case 'markdown':
      return markdown(header, events)
  }
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
        const { text, origin, images } = event.data as SessionEventMap['user/message']
        const who = origin === 'hook' ? 'Hook' : origin === 'subagent' ? 'Parent agent' : 'User'
        parts.push(`**${who}:**\n\n${quote(text + imageLines(images))}`)
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
          `${fence(label, 'json')}\n\n<details><summary>${result.isError ? 'error' : 'result'}</summary>\n\n${fence(result.content + imageLines(result.images), 'text')}\n\n</details>`,
        )
        break
      }
      case 'context/compacted': {
        const boundary = event.data as SessionEventMap['context/compacted']
        parts.push(`---\n\n*${formatCompactionLine(boundary)} (${boundary.trigger})*`)
        if (boundary.summary !== undefined)
          parts.push(`<details><summary>summary</summary>\n\n${boundary.summary}\n\n</details>`)
        break
      }
      case 'turn/end': {
        const { reason, error } = event.data as SessionEventMap['turn/end']
        if (reason !== 'completed') parts.push(`*(turn ended: ${reason})*`)
        // Why it ended (a failed request, a hook's reason), as `sessions show` prints it.
        if (error !== undefined) parts.push(fence(error, 'text'))
        break
      }
      default:
        break
    }
  }
  return `${parts.join('\n\n')}\n`
}

/** `[image shot.png 1280×800 214 KB]` lines after a message, as `sessions show` lists its images. */
function imageLines(images: readonly ImageRef[] | undefined): string {
  return (images ?? []).map((ref) => `\n${describeImage(ref)}`).join('')
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
