// The mapping from dsh to ACP `session/update`: live agent output while a prompt runs, and
// the stored log replayed on `session/load`. Both produce the same shapes for one turn.

import type { SessionUpdate, ToolCallContent, ToolKind } from '@agentclientprotocol/sdk'
import type { ImageRef } from '../../attachments/index.js'
import { formatCompactionLine } from '../../context/index.js'
import { DEEPSEEK_CONTEXT_TOKENS } from '../../llm/deepseek/models.js'
import type { AgentOutput } from '../../plugin-api/index.js'
import type { SessionEvent, SessionEventMap } from '../../session/types.js'
import type { UsageReport } from '../../usage/index.js'
import { diffContent, fileToolKind, planUpdate, toolLocations } from './file-updates.js'

const TITLE_MAX_CHARS = 80

/** Tool call ids are unique per session on the ACP side; a model's own ids may repeat across turns. */
export function acpToolCallId(turn: number, callId: string): string {
  return `${turn}/${callId}`
}

export function toolKind(name: string): ToolKind {
  const file = fileToolKind(name)
  if (file) return file
  switch (name) {
    case 'bash':
    case 'job_kill':
      return 'execute'
    case 'job_output':
      return 'read'
    case 'subagent':
      return 'think'
    case 'exit_plan_mode':
      return 'switch_mode'
    default:
      return 'other'
  }
}

/** A readable title: the tool name and the most telling argument (command, description, ...). */
export function toolTitle(name: string, input: unknown): string {
  if (typeof input === 'object' && input !== null) {
    const args = input as Record<string, unknown>
    for (const key of ['command', 'description', 'path', 'file_path', 'prompt']) {
      const value = args[key]
      if (typeof value === 'string' && value.trim() !== '') return `${name}: ${shorten(value.trim())}`
    }
  }
  return name
}

export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    // Not JSON: the client sees the model's text as it was.
    return text
  }
}

export function toolCallStart(
  turn: number,
  callId: string,
  name: string,
  argumentsText: string,
  cwd?: string,
): SessionUpdate {
  const input = parseArguments(argumentsText)
  const diffs = diffContent(name, input, cwd)
  const locations = toolLocations(name, input, cwd)
  // `pending` until the call is allowed (a permission question may come first); the
  // `tools/running` event then moves it to `in_progress` (toolCallRunning).
  return {
    sessionUpdate: 'tool_call',
    toolCallId: acpToolCallId(turn, callId),
    title: toolTitle(name, input),
    kind: toolKind(name),
    status: 'pending',
    rawInput: input,
    ...(diffs.length > 0 ? { content: diffs } : {}),
    ...(locations.length > 0 ? { locations } : {}),
  }
}

/** The call was allowed and runs now. */
export function toolCallRunning(turn: number, callId: string): SessionUpdate {
  return { sessionUpdate: 'tool_call_update', toolCallId: acpToolCallId(turn, callId), status: 'in_progress' }
}

export function toolCallEnd(turn: number, callId: string, content: string, isError: boolean): SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: acpToolCallId(turn, callId),
    status: isError ? 'failed' : 'completed',
    content: [textContent(content)],
  }
}

/** Maps one live output of the running turn `turn`; turn start and end have no update. */
export function outputUpdate(turn: number, output: AgentOutput, cwd?: string): SessionUpdate | undefined {
  switch (output.type) {
    case 'text-delta':
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: output.text } }
    case 'reasoning-delta':
      return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: output.text } }
    case 'tool-start':
      return toolCallStart(turn, output.callId, output.name, output.arguments, cwd)
    case 'tool-end':
      // A cancelled, killed or timed-out command failed (its text says why); a non-zero
      // exit is a normal, completed result with its exit code in the text.
      return toolCallEnd(turn, output.callId, output.content, output.isError || output.interrupted === true)
    case 'retry':
      // ACP has no slot for a retry notice; a thought line is shown and never becomes history.
      return {
        sessionUpdate: 'agent_thought_chunk',
        content: { type: 'text', text: `(${output.message})\n` },
      }
    case 'compaction':
      // Like a retry notice: the client is told, and the line never becomes history.
      return thought(
        output.phase === 'start' ? '(compacting context…)\n' : `(${formatCompactionLine(output.result)})\n`,
      )
    default:
      return undefined
  }
}

function thought(text: string): SessionUpdate {
  return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } }
}

/**
 * The updates that replay a stored log: user prompts, reasoning, answers, tool calls and
 * their results, and compaction boundaries, oldest first. Hook continuations, context and bookkeeping are not replayed
 * (a live client never saw them either).
 */
export function replayUpdates(
  events: readonly SessionEvent[],
  cwd?: string,
  images: ReadonlyMap<string, string> = new Map(),
): SessionUpdate[] {
  const updates: SessionUpdate[] = []
  let turn = 0
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        turn = (event.data as SessionEventMap['turn/start']).turn
        break
      case 'user/message': {
        const data = event.data as SessionEventMap['user/message']
        if (data.origin !== 'hook') {
          updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: data.text } })
          for (const ref of data.images ?? []) updates.push(replayedImage(ref, images.get(ref.sha256)))
        }
        break
      }
      case 'assistant/message': {
        const { message } = event.data as SessionEventMap['assistant/message']
        if (message.reasoning) {
          updates.push({
            sessionUpdate: 'agent_thought_chunk',
            content: { type: 'text', text: message.reasoning },
          })
        }
        if (message.content) {
          updates.push({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: message.content },
          })
        }
        break
      }
      case 'tool/call': {
        const call = event.data as SessionEventMap['tool/call']
        updates.push(toolCallStart(turn, call.callId, call.name, call.arguments, cwd))
        const plan = planUpdate(call.name, parseArguments(call.arguments))
        if (plan) updates.push(plan)
        break
      }
      case 'tool/result': {
        const result = event.data as SessionEventMap['tool/result']
        updates.push(toolCallEnd(turn, result.callId, result.content, result.isError === true))
        break
      }
      case 'context/compacted':
        // The whole history is replayed; the boundary is marked where it happened.
        updates.push(
          thought(`(${formatCompactionLine(event.data as SessionEventMap['context/compacted'])})\n`),
        )
        break
      default:
        break
    }
  }
  return updates
}

/**
 * A prompt's image as the client sent it: an `image` block (base64 of the stored bytes,
 * which may be the downscaled copy); a text line naming it when the store lost the bytes.
 */
function replayedImage(ref: ImageRef, base64: string | undefined): SessionUpdate {
  return {
    sessionUpdate: 'user_message_chunk',
    content:
      base64 !== undefined
        ? { type: 'image', mimeType: ref.mediaType, data: base64 }
        : { type: 'text', text: `[image ${ref.name} is no longer in the session's store]` },
    _meta: { dsh: { image: { sha256: ref.sha256, name: ref.name, width: ref.width, height: ref.height } } },
  }
}

/** The base64 of every image the stored prompts carry, by hash, for `replayUpdates`. */
export async function replayImages(
  events: readonly SessionEvent[],
  load: (sha256: string) => Promise<Buffer | undefined>,
): Promise<Map<string, string>> {
  const images = new Map<string, string>()
  for (const event of events) {
    if (event.type !== 'user/message') continue
    for (const ref of (event.data as SessionEventMap['user/message']).images ?? []) {
      if (images.has(ref.sha256)) continue
      const data = await load(ref.sha256).catch(() => undefined)
      if (data) images.set(ref.sha256, data.toString('base64'))
    }
  }
  return images
}

export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } }
}

function shorten(text: string): string {
  const line = text.split('\n', 1)[0]!
  return line.length > TITLE_MAX_CHARS || line !== text ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line
}

/**
 * ACP's usage slot after a turn: tokens in the context (the last request's prompt and
 * answer), the model's window (the context service's, else DeepSeek's 1M), and the
 * session's estimated cost so far.
 */
export function usageUpdate(
  events: readonly SessionEvent[],
  report: UsageReport,
  window: number = DEEPSEEK_CONTEXT_TOKENS,
): SessionUpdate {
  let used = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    const usage =
      event.type === 'assistant/message'
        ? (event.data as SessionEventMap['assistant/message']).usage
        : undefined
    if (usage) {
      used = usage.promptTokens + usage.completionTokens
      break
    }
  }
  const { cost } = report.sessionUsage
  return {
    sessionUpdate: 'usage_update',
    used,
    size: window,
    cost: cost === null ? null : { amount: cost, currency: report.currency },
    _meta: { dsh: { usage: report.usage, sessionUsage: report.sessionUsage } },
  }
}
