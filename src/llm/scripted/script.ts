// The script format shared by the in-process ScriptedAdapter and the loopback HTTP
// model: what a step may say, and the player that resolves steps one request at a time.

import { DEEPSEEK_FAULTS, type DeepSeekFault } from '../deepseek/strict.js'
import type { ChatMessage, ToolCallRequest, ToolSchema, Usage } from '../types.js'

export interface ScriptToolCall {
  name: string
  /** An object is sent as its JSON text; a string is sent verbatim (it may be invalid JSON). */
  arguments: unknown
  /** Default: `call_<n>`, counting from 1 across the script. */
  id?: string
}

/** A model answer, optionally with wire faults. */
export interface ScriptReply {
  text?: string
  reasoning?: string
  toolCalls?: ScriptToolCall[]
  /** Default: an estimate of about four characters per token. */
  usage?: Partial<Usage>
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string
  /** Pause before every streamed chunk, in ms. */
  delayMs?: number
  /** Drop the connection after this many SSE events (0: right after the headers). */
  cutAfterChunks?: number
  /** Before the first chunk, send nothing at all for this long, in ms (a stalled server). */
  stallMs?: number
  /** Before the first chunk, send `: keep-alive` comment lines (a busy server). */
  keepAlive?: { count: number; intervalMs: number }
  /**
   * A runaway server (loopback model only): after the role chunk, send `text` as a content
   * delta every `intervalMs` and never finish, until the client goes away.
   */
  endless?: { text: string; intervalMs: number }
}

/** An HTTP failure instead of an answer, e.g. `{ status: 429, retryAfter: 1 }`. */
export interface ScriptHttpFault {
  status: number
  /** Sent as the Retry-After header: seconds, or an HTTP date. */
  retryAfter?: number | string
  message?: string
}

/** One of DeepSeek's error classes, with its status and wording (`DEEPSEEK_FAULTS`). */
export interface ScriptFault {
  fault: DeepSeekFault
  retryAfter?: number | string
}

export type ScriptOutcome = ScriptReply | ScriptHttpFault | ScriptFault

/** What a step function sees: the request as dsh types, whichever side received it. */
export interface ScriptRequest {
  model: string
  messages: ChatMessage[]
  tools: ToolSchema[]
}

/** A fixed outcome, or a function of the request so a script can react to tool results. */
export type ScriptStep = ScriptOutcome | ((request: ScriptRequest) => ScriptOutcome | Promise<ScriptOutcome>)

export type Script = readonly ScriptStep[]

/** A reply with every default filled in. */
export interface ResolvedReply {
  text: string
  reasoning: string
  toolCalls: ToolCallRequest[]
  usage: Usage
  finishReason: string
  delayMs: number
  cutAfterChunks?: number
  stallMs?: number
  keepAlive?: { count: number; intervalMs: number }
  endless?: { text: string; intervalMs: number }
}

export type PlayedStep =
  | { kind: 'reply'; reply: ResolvedReply }
  | { kind: 'http'; status: number; message: string; type?: string; retryAfter?: string }

/** Plays a script: one step per request, in order. Holds all mutable state of a scripted model. */
export class ScriptPlayer {
  private position = 0
  private callCount = 0

  constructor(private readonly script: Script) {}

  /** Steps played so far. */
  get played(): number {
    return this.position
  }

  get remaining(): number {
    return this.script.length - this.position
  }

  /** The next step's outcome for `request`, or undefined when the script is exhausted. */
  async play(request: ScriptRequest): Promise<PlayedStep | undefined> {
    const step = this.script[this.position]
    if (step === undefined) return undefined
    this.position += 1
    const outcome = typeof step === 'function' ? await step(request) : step
    if ('fault' in outcome) {
      const fault = DEEPSEEK_FAULTS[outcome.fault]
      return {
        kind: 'http',
        status: fault.status,
        message: fault.message,
        type: fault.type,
        retryAfter: outcome.retryAfter === undefined ? undefined : String(outcome.retryAfter),
      }
    }
    if ('status' in outcome) {
      return {
        kind: 'http',
        status: outcome.status,
        message: outcome.message ?? `scripted HTTP ${outcome.status}`,
        retryAfter: outcome.retryAfter === undefined ? undefined : String(outcome.retryAfter),
      }
    }
    return { kind: 'reply', reply: this.resolve(outcome, request) }
  }

  /** The message for a request that found no step left. */
  exhaustedMessage(): string {
    return `scripted model: the script is exhausted (${this.script.length} steps played, request #${this.position + 1} has none)`
  }

  private resolve(reply: ScriptReply, request: ScriptRequest): ResolvedReply {
    const toolCalls = (reply.toolCalls ?? []).map((call) => {
      this.callCount += 1
      return {
        id: call.id ?? `call_${this.callCount}`,
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      }
    })
    const text = reply.text ?? ''
    const reasoning = reply.reasoning ?? ''
    const resolved: ResolvedReply = {
      text,
      reasoning,
      toolCalls,
      usage: mergeUsage(estimateUsage(request, text, reasoning, toolCalls), reply.usage),
      finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      delayMs: reply.delayMs ?? 0,
    }
    if (reply.cutAfterChunks !== undefined) resolved.cutAfterChunks = reply.cutAfterChunks
    if (reply.stallMs !== undefined) resolved.stallMs = reply.stallMs
    if (reply.keepAlive !== undefined) resolved.keepAlive = reply.keepAlive
    if (reply.endless !== undefined) resolved.endless = reply.endless
    return resolved
  }
}

function mergeUsage(estimate: Usage, given: Partial<Usage> | undefined): Usage {
  if (!given) return estimate
  const usage = { ...estimate, ...given }
  if (given.totalTokens === undefined) usage.totalTokens = usage.promptTokens + usage.completionTokens
  return usage
}

function estimateUsage(
  request: ScriptRequest,
  text: string,
  reasoning: string,
  calls: ToolCallRequest[],
): Usage {
  const tokens = (chars: number) => Math.ceil(chars / 4)
  const promptChars = request.messages.reduce((sum, message) => sum + message.content.length, 0)
  const reasoningTokens = tokens(reasoning.length)
  const completionTokens =
    tokens(text.length) + reasoningTokens + tokens(calls.reduce((sum, c) => sum + c.arguments.length, 0))
  const usage: Usage = {
    promptTokens: tokens(promptChars),
    completionTokens,
    totalTokens: tokens(promptChars) + completionTokens,
  }
  if (reasoningTokens > 0) usage.reasoningTokens = reasoningTokens
  return usage
}
