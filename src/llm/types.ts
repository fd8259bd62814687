// Types of the model seam: chat messages as the model sees them, tool schemas,
// and the streamed chunks an adapter yields.

export interface ToolCallRequest {
  id: string
  name: string
  /** The JSON text the model produced, kept verbatim (it may be invalid JSON). */
  arguments: string
}

/** The image formats DeepSeek accepts (Vision guide, read 2026-12-05), by media type. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/**
 * An image as log events and messages carry it: the content hash names the bytes, kept once
 * per session in the backend's image store; the rest is for people
 * (`[image shot.png 1280×800 214 KB]`). See src/attachments/.
 */
export interface ImageRef {
  /** SHA-256 of the stored bytes, lowercase hex. */
  sha256: string
  mediaType: ImageMediaType
  /** The file name it came from (no folders), or a made-up one for pasted images. */
  name: string
  width: number
  height: number
  /** Size of the stored bytes. */
  bytes: number
  /** Set when dsh downscaled it to fit the limits: the original's dimensions. */
  resizedFrom?: { width: number; height: number }
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; images?: readonly ImageRef[] }
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
