// Stream assembly: parsed `chat.completion.chunk` objects become ModelStreamChunks.
// Text and reasoning pass through as deltas; tool-call fragments are joined into calls
// (by index, split where a new id or name starts another) and emitted whole, in index
// order, once the message is finished.

import { randomUUID } from 'node:crypto'
import { DshError } from '../../core/errors.js'
import type { ModelStreamChunk } from '../adapter.js'
import { LlmErrorCode } from '../errors.js'
import type { ToolCallRequest, Usage } from '../types.js'
import type { WireChatChunk, WireToolCallDelta, WireUsage } from './wire-types.js'

interface PartialCall {
  index: number
  id: string
  name: string
  arguments: string
}

export class ChatStreamAssembler {
  /** Every call, in arrival order. */
  private readonly calls: PartialCall[] = []
  /** The call each wire index currently adds to. */
  private readonly callAt = new Map<number, PartialCall>()
  private callsEmitted = false
  private finishReason: string | undefined
  private usage: Usage | undefined
  private textBytesValue = 0

  /** UTF-8 bytes of answer, reasoning and tool-call arguments received so far (the stream's size bound). */
  get textBytes(): number {
    return this.textBytesValue
  }

  /** The finish_reason the server sent, once it did. */
  get finishReasonSent(): string | undefined {
    return this.finishReason
  }

  /** True once the server sent a finish_reason: the message is complete. */
  get messageFinished(): boolean {
    return this.finishReason !== undefined
  }

  /** Consumes one chunk and returns what can be emitted now. Throws LLM_PROTOCOL on a malformed call. */
  push(chunk: WireChatChunk): ModelStreamChunk[] {
    const out: ModelStreamChunk[] = []
    if (chunk.usage) this.usage = mapUsage(chunk.usage)
    // dsh asks for one choice; others (n > 1) are ignored.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0)
    if (!choice) return out
    const delta = choice.delta ?? {}
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (reasoning) {
      this.textBytesValue += Buffer.byteLength(reasoning)
      out.push({ type: 'reasoning-delta', text: reasoning })
    }
    if (delta.content) {
      this.textBytesValue += Buffer.byteLength(delta.content)
      out.push({ type: 'text-delta', text: delta.content })
    }
    for (const [position, fragment] of (delta.tool_calls ?? []).entries())
      this.addFragment(fragment, position)
    if (choice.finish_reason) {
      this.finishReason = mapFinishReason(choice.finish_reason)
      out.push(...this.takeCalls())
    }
    return out
  }

  /**
   * Ends the stream ([DONE] or end of body): any calls not yet emitted, then the finish
   * chunk. `cut`: the connection dropped after the finish_reason; without usage by then,
   * the finish says the usage was lost (`usageLost`).
   */
  finish(cut = false): ModelStreamChunk[] {
    const out = this.takeCalls()
    const finishReason = this.finishReason ?? (this.calls.length > 0 ? 'tool_calls' : 'stop')
    if (this.usage) out.push({ type: 'finish', finishReason, usage: this.usage })
    else if (cut) out.push({ type: 'finish', finishReason, usageLost: true })
    else out.push({ type: 'finish', finishReason })
    return out
  }

  private addFragment(fragment: WireToolCallDelta, position: number): void {
    // A server that omits `index` sends each call whole; its array position stands in.
    const index = fragment.index ?? position
    let call = this.callAt.get(index)
    if (!call || startsAnotherCall(call, fragment)) {
      call = { index, id: '', name: '', arguments: '' }
      this.calls.push(call)
      this.callAt.set(index, call)
    }
    if (fragment.id && !call.id) call.id = fragment.id
    // The name arrives whole in the first fragment; some servers repeat it later.
    if (fragment.function?.name && !call.name) call.name = fragment.function.name
    if (fragment.function?.arguments) {
      this.textBytesValue += Buffer.byteLength(fragment.function.arguments)
      call.arguments += fragment.function.arguments
    }
  }

  private takeCalls(): ModelStreamChunk[] {
    if (this.callsEmitted) return []
    this.callsEmitted = true
    // A stable sort: calls that share an index stay in arrival order.
    return [...this.calls]
      .sort((a, b) => a.index - b.index)
      .map((call): ModelStreamChunk => ({ type: 'tool-call', call: completeCall(call) }))
  }
}

/**
 * Whether `fragment`, sent at the index of `call`, begins a new call. Ollama labels every
 * call of a message index 0 and Gemini sends none, each call whole in its own chunk: a
 * different id, or (without ids) a name after a call already complete, starts the next
 * one. DeepSeek's and OpenAI's later fragments carry no id (or the same one), and a name
 * they repeat comes while the arguments are still incomplete.
 */
function startsAnotherCall(call: PartialCall, fragment: WireToolCallDelta): boolean {
  if (fragment.id && call.id) return fragment.id !== call.id
  return Boolean(fragment.function?.name) && call.name !== '' && isCompleteJson(call.arguments)
}

function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    // Incomplete (or never valid): the call may still be streaming its arguments.
    return false
  }
}

function completeCall(call: PartialCall): ToolCallRequest {
  if (!call.name) {
    throw new DshError(
      `model stream sent tool call #${call.index} without a function name`,
      LlmErrorCode.Protocol,
    )
  }
  return { id: call.id || `call_${randomUUID()}`, name: call.name, arguments: call.arguments }
}

/** OpenAI finish reasons, with the legacy `function_call` folded into `tool_calls`. */
export function mapFinishReason(reason: string): string {
  return reason === 'function_call' ? 'tool_calls' : reason
}

export function mapUsage(wire: WireUsage): Usage {
  const promptTokens = wire.prompt_tokens ?? 0
  const completionTokens = wire.completion_tokens ?? 0
  const usage: Usage = {
    promptTokens,
    completionTokens,
    totalTokens: wire.total_tokens ?? promptTokens + completionTokens,
  }
  const cached = wire.prompt_cache_hit_tokens ?? wire.prompt_tokens_details?.cached_tokens
  if (cached !== undefined) usage.cachedTokens = cached
  if (wire.prompt_cache_miss_tokens !== undefined) usage.cacheMissTokens = wire.prompt_cache_miss_tokens
  const reasoning = wire.completion_tokens_details?.reasoning_tokens
  if (reasoning !== undefined) usage.reasoningTokens = reasoning
  return usage
}
