// `dsh sessions export <id> --format claude-code|markdown|jsonl`: a stored session in
// another shape, read-only. `claude-code` writes Claude Code's transcript lines (one
// message per line, chained by uuid), `markdown` a readable document, `jsonl` dsh's own lines.

import { createHash } from 'node:crypto'
import { formatCompactionLine } from '../../context/index.js'
import type { ImageRef } from '../../llm/types.js'
import { summaryMessage } from '../../session/index.js'
import { transcriptMessage } from '../../session/transcript-message.js'
import type { SessionEvent, SessionEventMap, SessionHeader } from '../../session/types.js'

export const EXPORT_FORMATS = ['claude-code', 'markdown', 'jsonl'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** `images`: the bytes of the images the events name, by SHA-256 (claude-code writes them inline). */
export function exportSession(
  header: SessionHeader,
  events: readonly SessionEvent[],
  format: ExportFormat,
  images: ReadonlyMap<string, Buffer> = new Map(),
): string {
  switch (format) {
    case 'jsonl':
      return [{ type: 'session', ...header }, ...events].map((line) => `${JSON.stringify(line)}\n`).join('')
    case 'claude-code':
      return claudeCodeLines(header, events, images)
    case 'markdown':
      return markdown(header, events)
  }
}

function claudeCodeLines(
  header: SessionHeader,
  events: readonly SessionEvent[],
  images: ReadonlyMap<string, Buffer>,
): string {
  let parent: string | null = null
  let text = ''
  const common = (seq: number, time: number) => ({
    isSidechain: header.origin === 'subagent',
    userType: 'external',
    cwd: header.cwd ?? '',
    sessionId: header.id,
    uuid: uuidFor(header.id, seq),
    timestamp: new Date(time).toISOString(),
  })
  for (const event of events) {
    if (event.type === 'context/compacted') {
      const lines = compactionLines(event, parent, common(event.seq, event.time), header.id)
      for (const line of lines) text += `${JSON.stringify(line)}\n`
      parent = lines.at(-1)!.uuid as string
      continue
    }
    const message = withImages(transcriptMessage(event), event, images)
    if (!message) continue
    const { uuid, ...rest } = common(event.seq, event.time)
    const line = { parentUuid: parent, ...rest, type: message.role, message, uuid }
    text += `${JSON.stringify(line)}\n`
    parent = uuid
  }
  return text
}

/**
 * Claude Code's image content blocks (`{type: 'image', source: {type: 'base64', media_type,
 * data}}`, the Messages API's shape) for the images a user message or tool result names:
 * after the prompt text, or inside the tool_result's content. An image missing from the
 * store becomes a text block saying so.
 */
function withImages(
  message: ReturnType<typeof transcriptMessage>,
  event: SessionEvent,
  images: ReadonlyMap<string, Buffer>,
): ReturnType<typeof transcriptMessage> {
  const refs = (event.data as { images?: ImageRef[] }).images
  if (!message || !refs?.length) return message
  const blocks = refs.map((ref) => {
    const data = images.get(ref.sha256)
    return data
      ? {
          type: 'image',
          source: { type: 'base64', media_type: ref.mediaType, data: data.toString('base64') },
        }
      : { type: 'text', text: `[image ${ref.name} is missing from the session's store]` }
  })
  if (typeof message.content === 'string') {
    return { role: 'user', content: [{ type: 'text', text: message.content }, ...blocks] } as typeof message
  }
  const [first] = message.content
  if (first?.type === 'tool_result') {
    const content = [{ type: 'text', text: first.content }, ...blocks]
    return { ...message, content: [{ ...first, content }] } as unknown as typeof message
  }
  return message
}

/**
 * A compaction as Claude Code writes one in its transcripts (not in its docs; seen in real
 * transcripts, 2026-12-04): a summary is a `system` line with subtype `compact_boundary`,
 * `compactMetadata` {trigger, preTokens}, `parentUuid: null` and `logicalParentUuid`, then
 * the summary as a user line marked `isCompactSummary`; pruning alone is a
 * `microcompact_boundary` with `microcompactMetadata`. `content` is dsh's boundary line.
 */
function compactionLines(
  event: SessionEvent,
  parent: string | null,
  common: Record<string, unknown> & { uuid: string },
  sessionId: string,
): Record<string, unknown>[] {
  const boundary = event.data as SessionEventMap['context/compacted']
  const content = formatCompactionLine(boundary)
  if (boundary.summary === undefined) {
    return [
      {
        parentUuid: parent,
        ...common,
        type: 'system',
        subtype: 'microcompact_boundary',
        content,
        isMeta: false,
        level: 'info',
        microcompactMetadata: {
          trigger: boundary.trigger,
          preTokens: boundary.tokensBefore,
          tokensSaved: Math.max(0, boundary.tokensBefore - boundary.tokensAfter),
          compactedToolIds: boundary.pruned ?? [],
          clearedAttachmentUUIDs: [],
        },
      },
    ]
  }
  const summaryUuid = uuidFor(sessionId, event.seq, 'summary')
  return [
    {
      parentUuid: null,
      logicalParentUuid: parent,
      ...common,
      type: 'system',
      subtype: 'compact_boundary',
      content,
      isMeta: false,
      level: 'info',
      compactMetadata: { trigger: boundary.trigger, preTokens: boundary.tokensBefore },
    },
    {
      parentUuid: common.uuid,
      ...common,
      uuid: summaryUuid,
      type: 'user',
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: { role: 'user', content: summaryMessage(boundary.summary) },
    },
  ]
}

/** A stable uuid-shaped id per event, so two exports of one session agree. */
function uuidFor(id: string, seq: number, part = ''): string {
  const hex = createHash('sha256')
    .update(`${id}\0${seq}${part ? `\0${part}` : ''}`)
    .digest('hex')
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
      case 'context/compacted': {
        const boundary = event.data as SessionEventMap['context/compacted']
        parts.push(`---\n\n*${formatCompactionLine(boundary)} (${boundary.trigger})*`)
        if (boundary.summary !== undefined)
          parts.push(`<details><summary>summary</summary>\n\n${boundary.summary}\n\n</details>`)
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
