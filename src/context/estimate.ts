// The token estimate between requests. DeepSeek's Token & Token Usage page
// (https://api-docs.deepseek.com/quick_start/token_usage, read 2026-12-04) gives the rule
// of thumb: one English character is about 0.3 tokens, one Chinese character about 0.6.
// The API's `prompt_tokens` is the truth after each request; this only sizes what was
// appended since, and everything when no request has been answered yet.

import type { ChatMessage, ToolSchema } from '../llm/types.js'

export const TOKENS_PER_ASCII_CHAR = 0.3
export const TOKENS_PER_OTHER_CHAR = 0.6
/** Role markers and separators a message costs beyond its text. */
export const MESSAGE_OVERHEAD_TOKENS = 8
/** A tool call's id, type and wrapping beyond its name and arguments. */
export const TOOL_CALL_OVERHEAD_TOKENS = 16
/**
 * How far the estimate may be from the server's count, as a share of it. Measured against
 * the strict stand-in (four characters of request JSON a token): +5 % to +20 % on the
 * test sessions; DeepSeek's own ratio is the one above.
 */
export const ESTIMATE_ERROR = 0.25

/** Tokens of a text: 0.3 per ASCII character, 0.6 per other character, rounded up. */
export function estimateTextTokens(text: string): number {
  // Only ASCII text is as many UTF-8 bytes as UTF-16 units; the native count is ~10x the loop.
  if (Buffer.byteLength(text, 'utf8') === text.length) return Math.ceil(text.length * TOKENS_PER_ASCII_CHAR)
  // The UTF-16 units past ASCII: what is left without the ASCII runs. The regular expression
  // runs compiled; a charCodeAt loop took ~0.5 ms for the tools' 13 KB on a cold start.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range includes the controls
  const other = text.replace(/[\x00-\x7f]+/g, '').length
  return Math.ceil((text.length - other) * TOKENS_PER_ASCII_CHAR + other * TOKENS_PER_OTHER_CHAR)
}

/** What one message's tokens are spent on, for `/context`. */
export interface MessageTokens {
  text: number
  toolOutput: number
  reasoning: number
}

/**
 * The estimate is cached in a hidden slot of the message (a non-enumerable symbol: JSON,
 * spreads, clones and test equality never see it, so a copy with other content is estimated
 * afresh). Sizing a request reads every message several times, and a WeakMap lookup costs
 * 0.1 to 0.3 µs, which made a 15,000-message compaction spend most of its time looking up.
 * Frozen messages use the WeakMap.
 */
const TOKENS = Symbol('dsh.estimatedTokens')

/** Input tokens counted per image: the most DeepSeek bills one image at (see docs/images.md). */
export const IMAGE_TOKENS = 384
const frozenTokens = new WeakMap<ChatMessage, MessageTokens>()

/** A message's tokens by kind; cached, since a live history shares its message objects. */
export function estimateMessage(message: ChatMessage): MessageTokens {
  let tokens = (message as { [TOKENS]?: MessageTokens })[TOKENS] ?? frozenTokens.get(message)
  if (tokens) return tokens
  tokens = { text: MESSAGE_OVERHEAD_TOKENS, toolOutput: 0, reasoning: 0 }
  if (message.role === 'tool') tokens.toolOutput = estimateTextTokens(message.content)
  else tokens.text += estimateTextTokens(message.content)
  // DeepSeek bills an image at a capped number of input tokens (Vision guide); count the cap.
  if (message.role === 'user' && message.images) tokens.text += message.images.length * IMAGE_TOKENS
  if (message.role === 'assistant') {
    if (message.reasoning) tokens.reasoning = estimateTextTokens(message.reasoning)
    for (const call of message.toolCalls ?? [])
      tokens.text +=
        MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(call.name) + estimateTextTokens(call.arguments)
  }
  if (Object.isExtensible(message)) Object.defineProperty(message, TOKENS, { value: tokens })
  else frozenTokens.set(message, tokens)
  return tokens
}

export function messageTotal(message: ChatMessage): number {
  const tokens = estimateMessage(message)
  return tokens.text + tokens.toolOutput + tokens.reasoning
}

const toolTokens = new WeakMap<readonly ToolSchema[], number>()

/** Tokens of the tool definitions, as their JSON. */
export function estimateTools(tools: readonly ToolSchema[]): number {
  let tokens = toolTokens.get(tools)
  if (tokens === undefined) {
    tokens = tools.length === 0 ? 0 : estimateTextTokens(JSON.stringify(tools))
    toolTokens.set(tools, tokens)
  }
  return tokens
}
