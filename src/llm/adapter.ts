// The model seam: `ctx.llm` streams one chat completion. Providers extend LlmAdapter.

import { type Context, Service } from 'cordis'
import type { ChatMessage, ToolCallRequest, ToolSchema, Usage } from './types.js'

/** Which model an agent talks to, and how. Unset fields fall back to the adapter's defaults. */
export interface ModelChoice {
  model?: string
  temperature?: number
  maxTokens?: number
}

export interface ModelRequest extends ModelChoice {
  /** The full conversation, system prompt first. */
  messages: ChatMessage[]
  tools: ToolSchema[]
  signal?: AbortSignal
}

/** One piece of a streamed answer. Tool calls arrive whole, in model order. */
export type ModelStreamChunk =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; call: ToolCallRequest }
  | { type: 'finish'; finishReason: string; usage?: Usage }

export abstract class LlmAdapter extends Service {
  constructor(ctx: Context) {
    super(ctx, 'llm')
  }

  /** The model used when a request names none. */
  abstract readonly defaultModel: string

  /**
   * Streams one completion. Rejects (or throws while iterating) with a DshError of
   * LlmErrorCode; an aborted signal ends the stream with LlmErrorCode.Aborted.
   */
  abstract stream(request: ModelRequest): AsyncIterable<ModelStreamChunk>
}
