// The strict DeepSeek stand-in's rules: what today's DeepSeek API (docs read 2026-12-02)
// refuses, and how it counts prompt-cache hits. Used by the loopback model in strict mode,
// so tests and `dsh demo` fail the way a real key would.

import type { WireChatRequest, WireMessage, WireUsage } from '../openai/wire-types.js'
import { DEEPSEEK_MODELS } from './models.js'
import { imagePartRefusal } from './strict-images.js'

/** DeepSeek's own words for a missing reasoning passback (thinking-mode guide). */
export const PASSBACK_MESSAGE = 'The "reasoning_content" in the thinking mode must be passed back to the API.'
type AssistantMessage = Extract<WireMessage, { role: 'assistant' }>

export const MODEL_NOT_EXIST_MESSAGE = 'Model Not Exist'
/** The prefix cache works in whole units of this many tokens. */
export const CACHE_UNIT_TOKENS = 64
/** Effort spellings the API accepts; the others are refused. */
const ACCEPTED_EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra']

/** Error classes the stand-in produces on demand, with DeepSeek's status and wording. */
export const DEEPSEEK_FAULTS = {
  auth: {
    status: 401,
    type: 'authentication_error',
    message: 'Authentication Fails, Your api key is invalid',
  },
  balance: { status: 402, type: 'insufficient_balance', message: 'Insufficient Balance' },
  invalid: { status: 422, type: 'invalid_request_error', message: 'Invalid Parameters' },
  overflow: {
    status: 400,
    type: 'invalid_request_error',
    message:
      "This model's maximum context length is 1000000 tokens. However, you requested 1048576 tokens. Please reduce the length of the messages.",
  },
  'rate-limit': { status: 429, type: 'rate_limit_error', message: 'Rate Limit Reached' },
  server: { status: 500, type: 'server_error', message: 'Server Error' },
  overloaded: { status: 503, type: 'server_overloaded', message: 'Server Overloaded' },
} as const
export type DeepSeekFault = keyof typeof DEEPSEEK_FAULTS

export interface StrictRefusal {
  status: number
  type: string
  message: string
}

export interface StrictOptions {
  /** Accepted model ids. Default DEEPSEEK_MODELS. */
  models?: readonly string[]
  /**
   * The context window in tokens (counted as `usage` counts them). A request whose prompt
   * plus `max_tokens` is larger is refused with DeepSeek's context-length 400. Default: none.
   */
  contextWindow?: number
}

/** DeepSeek's words for a request over the window (the same shape as DEEPSEEK_FAULTS.overflow). */
export function overflowMessage(window: number, promptTokens: number, maxTokens: number): string {
  return `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`
}

/** Rules and memory of one strict server: what it streamed, and the prompts it has cached. */
export class DeepSeekRules {
  private readonly models: readonly string[]
  private readonly contextWindow: number | undefined
  /** Reasoning streamed with each tool call id, to check that it comes back byte-exact. */
  private readonly reasoningByCall = new Map<string, string>()
  /** Reasoning streamed with each tool-free answer, keyed by the answer's text. */
  private readonly reasoningByAnswer = new Map<string, string>()
  /** The prompt text of every earlier request, per model: the server's prefix cache. */
  private readonly cached = new Map<string, string[]>()

  constructor(options: StrictOptions = {}) {
    this.models = options.models ?? DEEPSEEK_MODELS
    this.contextWindow = options.contextWindow
  }

  /** Thinking mode is on unless the request turns it off. */
  thinking(body: WireChatRequest): boolean {
    return body.thinking?.type !== 'disabled'
  }

  /** Why DeepSeek would refuse `body`, or undefined when it is accepted. */
  refuse(body: WireChatRequest): StrictRefusal | undefined {
    const bad = (message: string, status = 400): StrictRefusal => ({
      status,
      type: 'invalid_request_error',
      message,
    })
    if (typeof body.model !== 'string' || !this.models.includes(body.model))
      return bad(MODEL_NOT_EXIST_MESSAGE)
    if (!Array.isArray(body.messages) || body.messages.length === 0) return bad('messages must not be empty')
    const thinking = body.thinking as { type?: unknown } | undefined
    if (thinking !== undefined && thinking.type !== 'enabled' && thinking.type !== 'disabled') {
      return bad('thinking.type must be "enabled" or "disabled"', 422)
    }
    const effort = body.reasoning_effort
    if (effort !== undefined && !ACCEPTED_EFFORTS.includes(effort)) {
      return bad(`reasoning_effort must be one of ${ACCEPTED_EFFORTS.join(', ')}`, 422)
    }
    if (body.max_tokens !== undefined && (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)) {
      return bad('max_tokens must be a positive integer', 422)
    }
    const imageProblem = imagePartRefusal(body)
    if (imageProblem !== undefined) return bad(imageProblem)
    if (this.thinking(body) && !this.passedBack(body.messages)) return bad(PASSBACK_MESSAGE)
    if (this.contextWindow !== undefined) {
      const promptTokens = Math.ceil(promptText(body).length / 4)
      const maxTokens = body.max_tokens ?? 0
      if (promptTokens + maxTokens > this.contextWindow)
        return bad(overflowMessage(this.contextWindow, promptTokens, maxTokens))
    }
    return undefined
  }

  /** Remembers the reasoning a reply streamed with its tool calls. */
  recordReply(reasoning: string, callIds: readonly string[], text = ''): void {
    for (const id of callIds) this.reasoningByCall.set(id, reasoning)
    if (callIds.length === 0 && text !== '') this.reasoningByAnswer.set(text, reasoning)
  }

  /**
   * Usage as DeepSeek reports it: prompt tokens estimated at four characters each, of
   * which the longest prefix shared with an earlier request of the same model is a cache
   * hit, counted in whole 64-token units. Records the request's prompt for later ones.
   */
  usage(body: WireChatRequest, completionTokens: number, reasoningTokens: number): WireUsage {
    const prompt = promptText(body)
    const promptTokens = Math.ceil(prompt.length / 4)
    const earlier = this.cached.get(body.model) ?? []
    let shared = 0
    for (const text of earlier) shared = Math.max(shared, commonPrefixLength(text, prompt))
    const hit = Math.min(promptTokens, Math.floor(shared / 4 / CACHE_UNIT_TOKENS) * CACHE_UNIT_TOKENS)
    earlier.push(prompt)
    this.cached.set(body.model, earlier)
    const usage: WireUsage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_cache_hit_tokens: hit,
      prompt_cache_miss_tokens: promptTokens - hit,
    }
    if (reasoningTokens > 0) usage.completion_tokens_details = { reasoning_tokens: reasoningTokens }
    return usage
  }

  /**
   * The thinking-mode guide's rule: between two user messages, when the model called tools,
   * every assistant message there must carry `reasoning_content` (an empty string for one
   * made without thinking) in every later request, and reasoning this server streamed must
   * come back byte-exact. An exchange without tool calls may drop its reasoning.
   */
  private passedBack(messages: readonly WireMessage[]): boolean {
    let exchange: AssistantMessage[] = []
    const complete = (): boolean => {
      if (!exchange.some((message) => message.tool_calls?.length)) return true
      return exchange.every((message) => {
        if (typeof message.reasoning_content !== 'string') return false
        const streamed = this.streamedReasoning(message)
        return streamed === undefined || streamed === message.reasoning_content
      })
    }
    for (const message of messages) {
      if (message.role === 'user') {
        if (!complete()) return false
        exchange = []
      } else if (message.role === 'assistant') exchange.push(message)
    }
    return complete()
  }

  /** The reasoning this server streamed with `message`, when it streamed it. */
  private streamedReasoning(message: AssistantMessage): string | undefined {
    if (message.tool_calls?.length) {
      for (const call of message.tool_calls) {
        const streamed = this.reasoningByCall.get(call.id)
        if (streamed !== undefined) return streamed
      }
      return undefined
    }
    return typeof message.content === 'string' ? this.reasoningByAnswer.get(message.content) : undefined
  }
}

/** The text the prefix cache sees: tools, then every message, exactly as the client sent them. */
export function promptText(body: WireChatRequest): string {
  let text = body.tools ? JSON.stringify(body.tools) : ''
  for (const message of body.messages ?? []) text += JSON.stringify(message)
  return text
}

function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length)
  let i = 0
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
