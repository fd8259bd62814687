// Stream assembly: consumes one model stream into the assistant's text, reasoning and
// tool calls, forwarding deltas as they arrive. Never throws: failures are values.

import { errorMessage, isDshError } from '../core/errors.js'
import { type FailureClass, FailureError } from '../failures/index.js'
import type { ModelRequest, ModelStreamChunk } from '../llm/adapter.js'
import { LlmErrorCode } from '../llm/errors.js'
import type { ToolCallRequest, Usage } from '../llm/types.js'
import type { AgentOutput } from '../plugin-api/index.js'

export interface AssembledReply {
  content: string
  reasoning: string
  toolCalls: ToolCallRequest[]
  finishReason?: string
  usage?: Usage
  /** Set when the answer finished but the connection dropped before the server reported usage. */
  usageLost?: true
  /** Set when the stream did not finish: it was aborted or failed. */
  interruption?: { kind: 'aborted' } | { kind: 'error'; message: string; failure?: FailureClass }
}

export async function assembleReply(
  stream: AsyncIterable<ModelStreamChunk>,
  signal: AbortSignal,
  emit: (output: AgentOutput) => void,
): Promise<AssembledReply> {
  const reply: AssembledReply = { content: '', reasoning: '', toolCalls: [] }
  try {
    for await (const chunk of stream) {
      if (signal.aborted) break
      switch (chunk.type) {
        case 'text-delta':
          reply.content += chunk.text
          emit({ type: 'text-delta', text: chunk.text })
          break
        case 'reasoning-delta':
          reply.reasoning += chunk.text
          emit({ type: 'reasoning-delta', text: chunk.text })
          break
        case 'tool-call':
          reply.toolCalls.push(chunk.call)
          break
        case 'finish':
          reply.finishReason = chunk.finishReason
          if (chunk.usage) reply.usage = chunk.usage
          if (chunk.usageLost) reply.usageLost = true
          break
      }
    }
    if (signal.aborted) reply.interruption = { kind: 'aborted' }
  } catch (error) {
    reply.interruption =
      signal.aborted || isDshError(error, LlmErrorCode.Aborted)
        ? { kind: 'aborted' }
        : error instanceof FailureError
          ? { kind: 'error', message: errorMessage(error), failure: error.failure.class }
          : { kind: 'error', message: errorMessage(error) }
  }
  // Tool calls of an unfinished reply never ran and are not part of what was shown.
  if (reply.interruption) reply.toolCalls = []
  return reply
}

/** About four characters a token: the same rough measure the rest of dsh estimates with. */
const CHARS_PER_TOKEN = 4

/**
 * The usage of a reply whose stream was cut after something arrived — midway, or after
 * the answer finished but before the usage chunk: the server's count never came, but the
 * request was billed. An estimate, marked `estimated`; undefined when the server reported
 * usage, nothing arrived at all, or the stream ended whole without usage (a server that
 * does not report it).
 */
export function estimateCutUsage(request: ModelRequest, reply: AssembledReply): Usage | undefined {
  if (reply.usage !== undefined) return undefined
  if (reply.interruption === undefined && !reply.usageLost) return undefined
  // Tool calls of an interrupted reply were dropped; a finished reply's calls arrived.
  const callChars = reply.toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0)
  if (reply.content === '' && reply.reasoning === '' && callChars === 0) return undefined
  const promptTokens = Math.ceil(
    (JSON.stringify(request.messages).length + JSON.stringify(request.tools).length) / CHARS_PER_TOKEN,
  )
  const reasoningTokens = Math.ceil(reply.reasoning.length / CHARS_PER_TOKEN)
  const completionTokens = Math.ceil((reply.content.length + callChars) / CHARS_PER_TOKEN) + reasoningTokens
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    ...(reasoningTokens > 0 ? { reasoningTokens } : {}),
    estimated: true,
  }
}
