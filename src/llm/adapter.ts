// The model seam: `ctx.llm` streams one chat completion. Providers extend LlmAdapter.

import { type Context, Service } from 'cordis'
import type { RetryNotice } from '../failures/index.js'
import { DEFAULT_EFFORT, type Effort } from './deepseek/effort.js'
import type { ChatMessage, ToolCallRequest, ToolSchema, Usage } from './types.js'

/** Which model an agent talks to, and how. Unset fields fall back to the adapter's defaults. */
export interface ModelChoice {
  model?: string
  /** Thinking effort; `off` disables thinking mode. Default DEFAULT_EFFORT (`high`). */
  effort?: Effort
  temperature?: number
  maxTokens?: number
}

export interface ModelRequest extends ModelChoice {
  /** The full conversation, system prompt first. */
  messages: ChatMessage[]
  tools: ToolSchema[]
  signal?: AbortSignal
  /** Called before the adapter waits and retries a failed attempt, so a front end can say so. */
  onRetry?: (notice: RetryNotice) => void
}

/** One piece of a streamed answer. Tool calls arrive whole, in model order. */
export type ModelStreamChunk =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; call: ToolCallRequest }
  | {
      type: 'finish'
      finishReason: string
      usage?: Usage
      /**
       * The connection dropped after the answer finished, before the server reported
       * usage: the request was billed, its figure is unknown (the step estimates one).
       */
      usageLost?: true
    }

export abstract class LlmAdapter extends Service {
  constructor(ctx: Context) {
    super(ctx, 'llm')
  }

  /** The model used when a request names none. */
  abstract readonly defaultModel: string

  /** The thinking effort used when a request names none. */
  get defaultEffort(): Effort {
    return DEFAULT_EFFORT
  }

  /**
   * Streams one completion. Rejects (or throws while iterating) with a DshError of
   * LlmErrorCode; an aborted signal ends the stream with LlmErrorCode.Aborted.
   */
  abstract stream(request: ModelRequest): AsyncIterable<ModelStreamChunk>
}
