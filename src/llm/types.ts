// Types of the model seam: chat messages as the model sees them, tool schemas,
// and the streamed chunks an adapter yields.

export interface ToolCallRequest {
  id: string
  name: string
  /** The JSON text the model produced, kept verbatim (it may be invalid JSON). */
  arguments: string
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; reasoning?: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; content: string }

export interface ToolSchema {
  name: string
  description: string
  /** JSON Schema of the parameters object. */
  parameters: Record<string, unknown>
}

export interface Usage {
  promptTokens: number
  completionTokens: number
  totalTokens: number
  /** Prompt tokens served from the prompt cache (DeepSeek `prompt_cache_hit_tokens`). */
  cachedTokens?: number
  /** Prompt tokens not in the cache (DeepSeek `prompt_cache_miss_tokens`). */
  cacheMissTokens?: number
  reasoningTokens?: number
  /**
   * Not reported by the server: the stream was cut (Ctrl-C, a dropped connection) before
   * its usage arrived, though the request was sent and is billed. Estimated at about four
   * characters a token from the request and what arrived; marked so nobody takes it for
   * the server's count.
   */
  estimated?: true
}
