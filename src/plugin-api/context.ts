// Types of the context seam: its settings, what fills a request, and the compactor
// interface its providers implement.

import type { LlmAdapter, ModelRequest } from '../llm/adapter.js'
import type { Usage } from '../llm/types.js'
import type { Session } from '../session/session.js'

export interface ContextSettings {
  /** Compact on its own before the window fills. Default true. */
  auto: boolean
  /** The share of the window at which automatic compaction starts, in (0, 1). Default 0.85. */
  threshold: number
  /** The window of the configured model, overriding the model table (tokens). */
  contextWindow?: number
  /** `max_tokens` the adapter sends when a request names none. */
  defaultMaxTokens: number
}

/** What one request's tokens are spent on (estimates, scaled to the server's count when known). */
export interface ContextBreakdown {
  system: number
  tools: number
  instructions: number
  messages: number
  toolOutputs: number
  reasoning: number
}

export interface ContextUsage {
  /** Tokens of the next request: the last `prompt_tokens` plus an estimate of what came since. */
  tokens: number
  /** The model's window, or undefined when unknown (a model not in the table, no `model.contextWindow`). */
  window?: number
  breakdown: ContextBreakdown
  /** True when `tokens` starts from the server's own count of the last request. */
  measured: boolean
}

export type CompactionTrigger = 'auto' | 'manual'

export interface CompactOptions {
  trigger: CompactionTrigger
  /** Why an automatic compaction runs. */
  reason?: 'threshold' | 'overflow'
  /** The user's words for the summary. */
  instructions?: string
  signal?: AbortSignal
  /** Rebuilds the session's next request from its log (the loop's request assembly). */
  rebuild: () => ModelRequest
  /** The window to compact for when the model's is unknown (read from the server's error). */
  windowHint?: number
  /** Told when a compaction starts and ends, so a front end can say so. */
  onCompaction?: (notice: CompactionNotice) => void
}

export type CompactionNotice =
  | { phase: 'start'; trigger: CompactionTrigger; reason?: 'threshold' | 'overflow' }
  | { phase: 'end'; trigger: CompactionTrigger; result: CompactionResult }

export interface PrepareOptions extends Omit<CompactOptions, 'trigger' | 'reason' | 'instructions'> {
  /** Only fit `max_tokens`: this request follows a compaction already. */
  noCompaction?: boolean
}

export interface CompactionResult {
  tokensBefore: number
  tokensAfter: number
  pruned: number
  summarised: boolean
}

/** What a compactor is given: the session, the request as it stands, and the budget to meet. */
export interface CompactionInput {
  session: Session
  request: ModelRequest
  window: number
  /** Tokens the request should end up under. */
  targetTokens: number
  /** Tool results pruned already, or by an earlier stage of this compaction. */
  pruned: ReadonlySet<string>
  instructions?: string
  /** Keep the recent steps verbatim after a summary (automatic compaction). Default true. */
  keepTail?: boolean
  llm: LlmAdapter
  signal?: AbortSignal
}

/** One stage's plan; the service appends it as one `context/compacted` event. */
export interface CompactionPlan {
  pruned?: string[]
  summary?: { text: string; keptFrom: number; model?: string; usage?: Usage }
}

/** The compactor seam: each provider shrinks a request its own way, cheapest first. */
export interface Compactor {
  readonly name: string
  /** A plan, or undefined when this stage has nothing to offer. Rejects when it cannot finish. */
  compact(input: CompactionInput): Promise<CompactionPlan | undefined>
}
