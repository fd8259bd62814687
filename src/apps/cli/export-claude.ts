// `dsh sessions export --format claude-code`: a session as Claude Code writes its transcript
// (`~/.claude/projects/<slug>/<session>.jsonl`), so usage analysers and transcript viewers
// written for Claude Code read it. What the line shape relies on is in docs/protocols.md.

import { isAbsolute, resolve } from 'node:path'
import { packageVersion } from '../../core/version.js'
import { claudeCodeToolName } from '../../hooks/index.js'
import type { Usage } from '../../llm/types.js'
import { toolUseInput } from '../../session/index.js'
import type { SessionEvent, SessionEventMap, SessionHeader } from '../../session/types.js'
import { type PriceTable, ratesAt, stepTokens, tokensCost } from '../../usage/index.js'
import { apiErrorLine, compactionLines, type Line } from './export-claude-lines.js'
import { eventOwners, hash, uuidFor } from './export-ids.js'
import { imageBlocks } from './export-images.js'

/** A stored session: what the export reads, for the session and each of its sub-agents. */
export interface StoredSession {
  header: SessionHeader
  events: readonly SessionEvent[]
}

export interface ClaudeExportOptions {
  /**
   * The sub-agent sessions the log names, by id: exported as sidechain lines (with an `agentId`)
   * right after the `Agent` call; `writeToClaudeProjects` moves them to files of their own.
   */
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

interface Chain {
  session: StoredSession
  /** The session whose file the lines go to (the parent for a sub-agent's sidechain). */
  fileSessionId: string
  agentId?: string
  parent: string | null
  model: string
}

/** The transcript as one stream of JSON lines, sub-agents' sidechains inline. */
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
  // Ids come from the session that wrote the event first: a fork's copied turns keep its parent's.
  const owners = eventOwners(header.id, events)
  const common = (at: number, part = '') => ({
    parentUuid: chain.parent,
    isSidechain: chain.agentId !== undefined,
    userType: 'external',
    cwd,
    sessionId: chain.fileSessionId,
    version: packageVersion(),
    ...(chain.agentId !== undefined ? { agentId: chain.agentId } : {}),
    uuid: uuidFor(owners[at]!, events[at]!.seq, part),
    timestamp: new Date(events[at]!.time).toISOString(),
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
          ...common(i),
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
        const id = `msg_${hash(owners[i]!, event.seq).slice(0, 24)}`
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
            ...common(i, n === 0 ? '' : `block${n}`),
            type: 'assistant',
            message: { ...message, content: [block] },
            requestId: `req_${hash(owners[i]!, event.seq, 'request').slice(0, 24)}`,
            ...(cost !== undefined ? { costUSD: cost } : {}),
          })
          if (block.type === 'tool_use') {
            const child = sidechainOf(events, i, block.id as string, options)
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
          ...common(i),
          type: 'assistant',
          message: {
            id: `msg_${hash(owners[i]!, event.seq).slice(0, 24)}`,
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
          ...common(i),
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
        const lines = compactionLines(event, chain.parent, common(i), owners[i]!)
        for (const line of lines) push(line)
        break
      }
      case 'turn/end': {
        // A turn that failed where the model's answer would be: Claude Code writes an API-error line.
        const { reason, error } = event.data as SessionEventMap['turn/end']
        if (reason === 'error' && error !== undefined)
          push(apiErrorLine(common(i), owners[i]!, event.seq, error))
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
  from: number,
  callId: string,
  options: ClaudeExportOptions,
): StoredSession | undefined {
  // From the call on: a call id may repeat in a later turn.
  for (const event of events.slice(from)) {
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
  // A forked sub-agent's copied seed is the parent's conversation, already in the file: what is
  // left is the sub-agent's own, and takes ids from its id.
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
  // Not a JSON object: the text, kept inside one (the raw log's `message` does the same).
  const { input, parsed } = toolUseInput(call.arguments)
  if (!parsed) return { name, input }
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
