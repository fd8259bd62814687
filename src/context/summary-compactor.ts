// Stage two, one model call: the same system prompt, tools and messages as the next
// request (so its prefix is a cache hit), then a request for a structured summary. The
// summary replaces every event before the recent tail it keeps.

import { DshError, errorMessage } from '../core/errors.js'
import type { ModelRequest } from '../llm/adapter.js'
import type { ChatMessage, Usage } from '../llm/types.js'
import type { CompactionInput, CompactionPlan, Compactor } from '../plugin-api/index.js'
import { prunedToolMessage, summaryMessage } from '../session/compaction-messages.js'
import type { ContextCompactedData, SessionEvent, SessionEventMap } from '../session/types.js'
import { ContextErrorCode } from './errors.js'
import { estimateTextTokens, estimateTools, messageTotal } from './estimate.js'
import { LATEST_STEP_SHARE } from './prune-compactor.js'
import { summaryRequestText } from './summary-prompt.js'

/** The recent steps kept verbatim after a summary, at most this share of the window. */
export const TAIL_SHARE = 0.1
/** The summary's output budget: a share of the window, within these bounds (thinking counts). */
export const SUMMARY_OUTPUT_SHARE = 0.15
export const MIN_SUMMARY_OUTPUT_TOKENS = 2_048
export const MAX_SUMMARY_OUTPUT_TOKENS = 32_768

export function summaryOutputTokens(window: number): number {
  return Math.round(
    Math.min(MAX_SUMMARY_OUTPUT_TOKENS, Math.max(MIN_SUMMARY_OUTPUT_TOKENS, window * SUMMARY_OUTPUT_SHARE)),
  )
}

export const summaryCompactor: Compactor = {
  name: 'summary',
  async compact(input: CompactionInput): Promise<CompactionPlan> {
    const maxTokens = summaryOutputTokens(input.window)
    const messages = fitMessages(
      prunedView(input.request.messages, input.pruned),
      input.window - maxTokens - estimateTextTokens(JSON.stringify(input.request.tools)) - 256,
    )
    messages.push({ role: 'user', content: summaryRequestText(input.instructions) })
    const request: ModelRequest = { ...input.request, messages, maxTokens }
    if (input.signal) request.signal = input.signal
    let reply = await streamText(input, request)
    // A model that answers with tool calls only is asked once more, without tools to call.
    if (reply.text.trim() === '') reply = await streamText(input, { ...request, tools: [] })
    if (reply.text.trim() === '') {
      throw new DshError('compaction failed: the model returned no summary', ContextErrorCode.SummaryFailed)
    }
    const text = reply.text.trim()
    // The next request holds the system prompt, the tools, this summary and the tail: the tail
    // gets what the target leaves after the others (its own share at most), so a long summary
    // does not push the next request past the target. The newest step may still take more.
    const fixed =
      messageTotal(input.request.messages[0]!) +
      estimateTools(input.request.tools) +
      estimateTextTokens(summaryMessage(text))
    const keptFrom =
      input.keepTail === false
        ? input.session.events.length
        : tailStart(
            input.session.events,
            input.pruned,
            Math.max(0, Math.min(input.window * TAIL_SHARE, input.targetTokens - fixed)),
            input.window * LATEST_STEP_SHARE,
          )
    const summary: NonNullable<CompactionPlan['summary']> = { text, keptFrom }
    if (request.model !== undefined) summary.model = request.model
    if (reply.usage) summary.usage = reply.usage
    return { summary }
  },
}

async function streamText(
  input: CompactionInput,
  request: ModelRequest,
): Promise<{ text: string; usage?: Usage }> {
  let text = ''
  let usage: Usage | undefined
  try {
    for await (const chunk of input.llm.stream(request)) {
      if (chunk.type === 'text-delta') text += chunk.text
      else if (chunk.type === 'finish' && chunk.usage) usage = chunk.usage
    }
  } catch (error) {
    if (input.signal?.aborted) throw new DshError('compaction was cancelled', ContextErrorCode.Aborted)
    throw new DshError(`compaction failed: ${errorMessage(error)}`, ContextErrorCode.SummaryFailed, {
      cause: error,
    })
  }
  return usage ? { text, usage } : { text }
}

/** The messages with pruned tool outputs replaced, as the next request would carry them. */
export function prunedView(messages: readonly ChatMessage[], pruned: ReadonlySet<string>): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'tool' && pruned.has(message.toolCallId) && !message.content.startsWith('[output pruned')
      ? prunedToolMessage(message)
      : message,
  )
}

/**
 * Drops the oldest exchanges (never the system prompt) until the messages fit `budget`:
 * only an old session that overflowed before compaction existed, or one huge message,
 * needs it. Whole exchanges go, so no tool result loses its call.
 */
function fitMessages(messages: ChatMessage[], budget: number): ChatMessage[] {
  let total = 0
  for (const message of messages) total += messageTotal(message)
  let start = 1
  while (total > budget && start < messages.length - 1) {
    total -= messageTotal(messages[start]!)
    start++
    while (start < messages.length - 1 && messages[start]!.role === 'tool') {
      total -= messageTotal(messages[start]!)
      start++
    }
  }
  return [messages[0]!, ...messages.slice(start)]
}

/**
 * Where the verbatim tail starts: the earliest turn or step start after the last summary
 * whose events fit `budget` tokens. With no such point the tail is empty (the user's last
 * message is kept anyway, by history derivation).
 */
export function tailStart(
  events: readonly SessionEvent[],
  pruned: ReadonlySet<string>,
  budget: number,
  latestStepBudget = budget,
): number {
  let tokens = 0
  let start = events.length
  let steps = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'context/compacted' && (event.data as ContextCompactedData).summary !== undefined)
      break
    tokens += eventTokens(event, pruned)
    // The newest complete step may take more than the tail's share (the prune stage kept it too).
    if (tokens > (steps <= 1 ? Math.max(budget, latestStepBudget) : budget)) break
    if (event.type === 'turn/start' || event.type === 'step/start') {
      start = i
      steps++
    }
  }
  return start
}

function eventTokens(event: SessionEvent, pruned: ReadonlySet<string>): number {
  switch (event.type) {
    case 'user/message':
      return estimateTextTokens((event.data as SessionEventMap['user/message']).text)
    case 'context/added':
      return estimateTextTokens((event.data as SessionEventMap['context/added']).text)
    case 'assistant/message': {
      const { message } = event.data as SessionEventMap['assistant/message']
      return estimateTextTokens(message.content) + estimateTextTokens(message.reasoning ?? '')
    }
    case 'tool/call':
      return estimateTextTokens((event.data as SessionEventMap['tool/call']).arguments)
    case 'tool/result': {
      const { callId, content } = event.data as SessionEventMap['tool/result']
      return pruned.has(callId) ? 40 : estimateTextTokens(content)
    }
    default:
      return 0
  }
}
