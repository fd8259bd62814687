// The OpenAI Chat Completions wire format, as far as dsh speaks it (requests, streamed
// chunks, non-stream completions, error bodies). Types only.

export interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A part of a user message's content array (DeepSeek Vision guide: `text` and `image_url`). */
export type WireContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } }

export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WireContentPart[] }
  | {
      role: 'assistant'
      content: string | null
      tool_calls?: WireToolCall[]
      /** DeepSeek thinking mode: the reasoning streamed with this message, sent back byte-exact. */
      reasoning_content?: string
    }
  | { role: 'tool'; tool_call_id: string; content: string }

export interface WireTool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

export interface WireChatRequest {
  model: string
  messages: WireMessage[]
  tools?: WireTool[]
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  temperature?: number
  max_tokens?: number
  /** DeepSeek: thinking mode on or off (on by default). */
  thinking?: { type: 'enabled' | 'disabled' }
  /** DeepSeek: `low | high | max` in thinking mode. */
  reasoning_effort?: string
}

export interface WireUsage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  /** DeepSeek context caching. */
  prompt_cache_hit_tokens?: number
  prompt_cache_miss_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
  completion_tokens_details?: { reasoning_tokens?: number } | null
}

/** One streamed tool-call fragment; only `index` is reliably present after the first fragment. */
export interface WireToolCallDelta {
  index?: number
  id?: string
  type?: 'function'
  function?: { name?: string; arguments?: string }
}

export interface WireChunkChoice {
  index: number
  delta: {
    role?: 'assistant'
    content?: string | null
    reasoning_content?: string | null
    /** Spelling some OpenAI-compatible servers use instead of `reasoning_content`. */
    reasoning?: string | null
    tool_calls?: WireToolCallDelta[]
  }
  finish_reason: string | null
}

export interface WireChatChunk {
  id?: string
  object?: 'chat.completion.chunk'
  created?: number
  model?: string
  choices?: WireChunkChoice[]
  usage?: WireUsage | null
  /** Some servers report failures inside the stream. */
  error?: { message?: string; type?: string; code?: string | number | null }
}

export interface WireCompletion {
  id: string
  object: 'chat.completion'
  created: number
  model: string
  choices: {
    index: number
    message: {
      role: 'assistant'
      content: string | null
      reasoning_content?: string
      tool_calls?: WireToolCall[]
    }
    finish_reason: string
  }[]
  usage: WireUsage
}

export interface WireErrorBody {
  error: { message: string; type?: string; code?: string | number | null }
}
