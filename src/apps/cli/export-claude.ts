// `dsh sessions export --format claude-code`: a session as Claude Code writes its transcript
// (`~/.claude/projects/<slug>/<session>.jsonl`), so usage analysers and transcript viewers
// written for Claude Code read it. What the line shape relies on is in docs/protocols.md.

import { createHash } from 'node:crypto'
import { isAbsolute, resolve } from 'node:path'
import { formatCompactionLine } from '../../context/index.js'
import { packageVersion } from '../../core/version.js'
import { claudeCodeToolName } from '../../hooks/index.js'
import type { Usage } from '../../llm/types.js'
import { summaryMessage } from '../../session/index.js'
import type { SessionEvent, SessionEventMap, SessionHeader } from '../../session/types.js'
import { type PriceTable, ratesAt, stepTokens, tokensCost } from '../../usage/index.js'
import { imageBlocks } from './export-images.js'

/** A stored session: what the export reads, for the session and each of its sub-agents. */
export interface StoredSession {
  header: SessionHeader
  events: readonly SessionEvent[]
}

export interface ClaudeExportOptions {
  /** The sub-agent sessions the log names, by id: exported as sidechain lines of the same file. */
  subagents?: ReadonlyMap<string, StoredSession>
  /** Prices each assistant line's `costUSD` (only when the table's currency is USD). */
  prices?: PriceTable
  /** Image bytes by SHA-256, for the image blocks of messages that attached images. */
  images?: ReadonlyMap<string, Buffer>
}

/** The sub-agent session a `subagent` tool result names (`[sub-agent session <id>]`). */
export function subagentIdOf(content: string): string | undefined {
  return /^\[sub-agent session (.+)\]$/m.exec(content.split('\n', 1)[0] ?? '')?.[1]
}

/** Claude Code's project folder name: the absolute folder with every non-alphanumeric character as `-`. */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-')
}

type Line = Record<string, unknown>

interface Chain {
  session: StoredSession
  /** The session whose file the lines go to (the parent for a sub-agent's sidechain). */
  fileSessionId: string
  agentId?: string
  parent: string | null
  model: string
}

export function claudeCodeTranscript(main: StoredSession, options: ClaudeExportOptions = {}): string {
  const lines: Line[] = []
  writeChain(
    { session: main, fileSessionId: main.header.id, parent: null, model: 'deepseek-chat' },
    lines,
    options,
  )
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('')
}

function writeChain(chain: Chain, out: Line[], options: ClaudeExportOptions): void {
  const { header, events } = chain.session
  const cwd = header.cwd ?? ''
  const common = (seq: number, time: number, part = '') => ({
    parentUuid: chain.parent,
    isSidechain: chain.agentId !== undefined,
    userType: 'external',
    cwd,
    sessionId: chain.fileSessionId,
    version: packageVersion(),
    ...(chain.agentId !== undefined ? { agentId: chain.agentId } : {}),
    uuid: uuidFor(header.id, seq, part),
    timestamp: new Date(time).toISOString(),
  })
  const push = (line: Line) => {
    out.push(line)
    chain.parent = line.uuid as string
  }
  const calls = new Map<string, SessionEventMap['tool/call']>()
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    switch (event.type) {
      case 'request/config': {
        const { model } = event.data as SessionEventMap['request/config']
        if (model !== undefined) chain.model = model
        break
      }
      case 'user/message': {
        const { text, origin } = event.data as SessionEventMap['user/message']
        const images = imageBlocks(event.data, options.images)
        // Text a hook added (a Stop hook's reason) is not the user's: Claude Code marks such lines `isMeta`.
        push({
          ...common(event.seq, event.time),
          type: 'user',
          message: { role: 'user', content: images.length ? [{ type: 'text', text }, ...images] : text },
          ...(origin === 'hook' ? { isMeta: true } : {}),
        })
        break
      }
      case 'assistant/message': {
        // One model response: its reasoning, text and tool calls are one message id, one line
        // per content block, each with the response's usage — as Claude Code writes them.
        const data = event.data as SessionEventMap['assistant/message']
        const stepCalls: SessionEventMap['tool/call'][] = []
        for (let j = i + 1; j < events.length && events[j]!.type === 'tool/call'; j++)
          stepCalls.push(events[j]!.data as SessionEventMap['tool/call'])
        const blocks: Line[] = []
        if (data.message.reasoning)
          blocks.push({ type: 'thinking', thinking: data.message.reasoning, signature: '' })
        if (data.message.content !== '' || (blocks.length === 0 && stepCalls.length === 0))
          blocks.push({ type: 'text', text: data.message.content })
        for (const call of stepCalls) {
          calls.set(call.callId, call)
          blocks.push({ type: 'tool_use', id: call.callId, ...toolUse(call, cwd) })
        }
        const id = `msg_${hash(header.id, event.seq).slice(0, 24)}`
        const message = {
          id,
          type: 'message',
          role: 'assistant',
          model: chain.model,
          stop_reason: stopReason(events, i, stepCalls.length > 0),
          stop_sequence: null,
          usage: claudeUsage(data.usage),
        }
        const cost = costUsd(options.prices, chain.model, data.usage, event.time)
        blocks.forEach((block, n) => {
          push({
            ...common(event.seq, event.time, n === 0 ? '' : `block${n}`),
            type: 'assistant',
            message: { ...message, content: [block] },
            requestId: `req_${hash(header.id, event.seq, 'request').slice(0, 24)}`,
            ...(cost !== undefined ? { costUSD: cost } : {}),
          })
          if (block.type === 'tool_use') {
            const child = sidechainOf(events, block.id as string, options)
            if (child) writeSidechain(child, chain, out, options)
          }
        })
        i += stepCalls.length
        break
      }
      case 'tool/call': {
        // A call without its response's message (an older log): one line of its own.
        const call = event.data as SessionEventMap['tool/call']
        calls.set(call.callId, call)
        push({
          ...common(event.seq, event.time),
          type: 'assistant',
          message: {
            id: `msg_${hash(header.id, event.seq).slice(0, 24)}`,
            type: 'message',
            role: 'assistant',
            model: chain.model,
            content: [{ type: 'tool_use', id: call.callId, ...toolUse(call, cwd) }],
            stop_reason: 'tool_use',
            stop_sequence: null,
          },
        })
        break
      }
      case 'tool/result': {
        const result = event.data as SessionEventMap['tool/result']
        const failed = result.isError === true || commandFailed(calls.get(result.callId), result.content)
        push({
          ...common(event.seq, event.time),
          type: 'user',
          message: {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: result.callId,
                content: resultContent(result.content, imageBlocks(event.data, options.images)),
                is_error: failed,
              },
            ],
          },
          toolUseResult: failed ? `Error: ${result.content}` : result.content,
        })
        break
      }
      case 'context/compacted': {
        const lines = compactionLines(event, chain.parent, common(event.seq, event.time), header.id)
        for (const line of lines) push(line)
        break
      }
      default:
        break
    }
  }
}

/** A tool result's content: its text, or text and image blocks when it returned images (`read`). */
function resultContent(text: string, images: Record<string, unknown>[]): unknown {
  return images.length ? [{ type: 'text', text }, ...images] : text
}

/**
 * A bash call whose command failed: dsh gives the model a non-zero exit as a normal result
 * (`[exit code: N]`, a timeout, a signal as the last line), Claude Code marks it `is_error`.
 */
function commandFailed(call: SessionEventMap['tool/call'] | undefined, content: string): boolean {
  if (call?.name !== 'bash') return false
  const last = content.slice(content.lastIndexOf('\n') + 1)
  return /^\[(exit code: -?\d+|timed out after \d+ms|killed by signal: \w+|cancelled)\]$/.test(last)
}

/** The sub-agent session behind a `subagent` call, found through its tool result. */
function sidechainOf(
  events: readonly SessionEvent[],
  callId: string,
  options: ClaudeExportOptions,
): StoredSession | undefined {
  for (const event of events) {
    if (event.type !== 'tool/result') continue
    const result = event.data as SessionEventMap['tool/result']
    if (result.callId !== callId) continue
    const id = subagentIdOf(result.content)
    return id === undefined ? undefined : options.subagents?.get(id)
  }
  return undefined
}

/** A sub-agent's conversation: lines of the parent's file with `isSidechain`, its own chain from null. */
function writeSidechain(
  child: StoredSession,
  parent: Chain,
  out: Line[],
  options: ClaudeExportOptions,
): void {
  // A forked sub-agent's copied seed is the parent's conversation, already in the file.
  const events = child.events.slice(child.header.seedLength ?? 0)
  writeChain(
    {
      session: { header: child.header, events },
      fileSessionId: parent.fileSessionId,
      agentId: hash(child.header.id, 0, 'agent').slice(0, 8),
      parent: null,
      model: parent.model,
    },
    out,
    options,
  )
}

/** Claude Code's tool name and input fields: `Bash` with `timeout`, absolute `file_path`, `Agent`. */
function toolUse(call: SessionEventMap['tool/call'], cwd: string): { name: string; input: unknown } {
  const name = claudeCodeToolName(call.name)
  let input: unknown
  try {
    input = JSON.parse(call.arguments)
  } catch {
    // Not JSON (the model's mistake, reported to it as such): kept as the raw text.
    return { name, input: call.arguments }
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { name, input }
  const fields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (call.name === 'bash' && key === 'timeout_ms') fields.timeout = value
    else if (key === 'file_path' && typeof value === 'string' && !isAbsolute(value) && cwd !== '')
      fields.file_path = resolve(cwd, value)
    else fields[key] = value
  }
  if (call.name === 'subagent') fields.subagent_type ??= 'general-purpose'
  return { name, input: fields }
}

/**
 * DeepSeek's usage in the Messages API's terms: `input_tokens` are the prompt tokens the
 * cache missed, `cache_read_input_tokens` the ones it hit; DeepSeek charges no cache writes.
 */
function claudeUsage(usage: Usage | undefined): Record<string, number> {
  const tokens = usage ? stepTokens(usage) : undefined
  return {
    input_tokens: tokens?.cacheMissTokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: tokens?.cacheHitTokens ?? 0,
    output_tokens: tokens?.outputTokens ?? 0,
  }
}

function costUsd(table: PriceTable | undefined, model: string, usage: Usage | undefined, time: number) {
  if (table === undefined || usage === undefined) return undefined
  if (table.currency !== 'USD') return undefined
  return tokensCost(stepTokens(usage), ratesAt(table, model, time)) ?? undefined
}

/** The `stop_reason` of the response: from the step's finish reason, in the Messages API's words. */
function stopReason(events: readonly SessionEvent[], at: number, calledTools: boolean): string | null {
  if (calledTools) return 'tool_use'
  for (let i = at + 1; i < events.length; i++) {
    if (events[i]!.type !== 'step/end') continue
    const reason = (events[i]!.data as SessionEventMap['step/end']).finishReason
    if (reason === 'length') return 'max_tokens'
    if (reason === 'stop') return 'end_turn'
    return reason === 'tool_calls' ? 'tool_use' : null
  }
  return null
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
): Line[] {
  const boundary = event.data as SessionEventMap['context/compacted']
  const content = formatCompactionLine(boundary)
  if (boundary.summary === undefined) {
    return [
      {
        ...common,
        parentUuid: parent,
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
  return [
    {
      ...common,
      parentUuid: null,
      logicalParentUuid: parent,
      type: 'system',
      subtype: 'compact_boundary',
      content,
      isMeta: false,
      level: 'info',
      compactMetadata: { trigger: boundary.trigger, preTokens: boundary.tokensBefore },
    },
    {
      ...common,
      parentUuid: common.uuid,
      uuid: uuidFor(sessionId, event.seq, 'summary'),
      type: 'user',
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: { role: 'user', content: summaryMessage(boundary.summary) },
    },
  ]
}

function hash(id: string, seq: number, part = ''): string {
  return createHash('sha256')
    .update(`${id}\0${seq}${part ? `\0${part}` : ''}`)
    .digest('hex')
}

/** A stable uuid-shaped id per event, so two exports of one session agree. */
function uuidFor(id: string, seq: number, part = ''): string {
  const hex = hash(id, seq, part)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
