// Request building: a ModelRequest becomes the JSON body of a streamed
// `POST /chat/completions`. Each message's JSON text is cached, so building request N
// of a long session costs about one join of strings, and the bytes of every earlier
// message are the same from one request to the next (the server's prefix cache hits).

import type { ModelRequest } from '../adapter.js'
import { DEFAULT_EFFORT, type Effort, effortFields, thinkingEnabled } from '../deepseek/effort.js'
import { imageDataUrl } from '../image-encoding.js'
import type { ChatMessage, ToolSchema } from '../types.js'
import type { WireChatRequest, WireContentPart, WireMessage, WireTool } from './wire-types.js'

export interface WireOptions {
  /** Thinking mode is on: assistant messages without reasoning carry `reasoning_content: ""`. */
  thinking: boolean
}

/** What the adapter fills in for fields a request leaves unset. */
export interface RequestDefaults {
  model: string
  maxTokens: number
  effort?: Effort
}

/** The fully resolved request fields that are not messages or tools. */
interface RequestTail {
  model: string
  effort: Effort
  maxTokens: number
  temperature?: number
}

/** The streamed Chat Completions body for `request`, asking for usage in the final chunk. */
export function buildChatRequest(request: ModelRequest, defaults: RequestDefaults): WireChatRequest {
  const tail = resolveTail(request, defaults)
  const body: WireChatRequest = {
    model: tail.model,
    messages: toWireMessages(request.messages, { thinking: thinkingEnabled(tail.effort) }),
  }
  // Some compatible servers reject an empty tools array.
  if (request.tools.length > 0) body.tools = request.tools.map(toWireTool)
  Object.assign(body, tailFields(tail))
  return body
}

/**
 * The same body as JSON text, byte for byte `JSON.stringify(buildChatRequest(...))`,
 * built from cached per-message JSON.
 */
export function encodeChatRequest(request: ModelRequest, defaults: RequestDefaults): string {
  const tail = resolveTail(request, defaults)
  const thinking = thinkingEnabled(tail.effort)
  // Stryker disable next-line ArrayDeclaration: equivalent, the array grows as it is filled; the length only sizes it once
  const parts = new Array<string>(request.messages.length)
  for (let i = 0; i < request.messages.length; i++) parts[i] = wireMessageJson(request.messages[i]!, thinking)
  let text = `{"model":${JSON.stringify(tail.model)},"messages":[${joinMessages(parts)}]`
  if (request.tools.length > 0) text += `,"tools":${toolsJson(request.tools)}`
  return `${text},${JSON.stringify(tailFields(tail)).slice(1)}`
}

function resolveTail(request: ModelRequest, defaults: RequestDefaults): RequestTail {
  const tail: RequestTail = {
    model: request.model ?? defaults.model,
    effort: request.effort ?? defaults.effort ?? DEFAULT_EFFORT,
    maxTokens: request.maxTokens ?? defaults.maxTokens,
  }
  if (request.temperature !== undefined) tail.temperature = request.temperature
  return tail
}

function tailFields(tail: RequestTail): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: tail.maxTokens,
    ...effortFields(tail.effort),
  }
  // DeepSeek ignores temperature in thinking mode; it is sent only when it can matter.
  if (tail.temperature !== undefined && tail.effort === 'off') fields.temperature = tail.temperature
  return fields
}

/**
 * Converts the conversation to wire messages. Reasoning passback: every assistant
 * message that carried reasoning sends it back byte-exact, in every request (DeepSeek
 * answers 400 when the reasoning of a tool-calling turn is missing). In thinking mode an
 * assistant message without reasoning (effort off, another model, an older dsh) is sent
 * with `reasoning_content: ""`, so switching effort mid-session never trips that rule.
 */
export function toWireMessages(messages: readonly ChatMessage[], options: WireOptions): WireMessage[] {
  return messages.map((message) => toWireMessage(message, options.thinking))
}

function toWireMessage(message: ChatMessage, thinking: boolean): WireMessage {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
  }
  if (message.role === 'user' && message.images?.length) {
    // The Vision guide's shape: the text, then one `image_url` part per image as a base64 data URL.
    const parts: WireContentPart[] = message.content === '' ? [] : [{ type: 'text', text: message.content }]
    for (const image of message.images)
      parts.push({ type: 'image_url', image_url: { url: imageDataUrl(image) } })
    return { role: 'user', content: parts }
  }
  if (message.role !== 'assistant') return { role: message.role, content: message.content }
  const calls = message.toolCalls ?? []
  const wire: WireMessage = {
    role: 'assistant',
    content: calls.length > 0 && message.content === '' ? null : message.content,
  }
  if (message.reasoning) wire.reasoning_content = message.reasoning
  else if (thinking) wire.reasoning_content = ''
  if (calls.length > 0) {
    wire.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }))
  }
  return wire
}

interface CachedJson {
  thinking: boolean
  toolCalls: unknown
  json: string
}

/** Message objects of a derived history are shared between requests and never change once complete. */
const messageJson = new WeakMap<ChatMessage, CachedJson>()

function wireMessageJson(message: ChatMessage, thinking: boolean): string {
  const toolCalls = message.role === 'assistant' ? message.toolCalls : undefined
  const cached = messageJson.get(message)
  if (cached && cached.thinking === thinking && cached.toolCalls === toolCalls) return cached.json
  const json = JSON.stringify(toWireMessage(message, thinking))
  messageJson.set(message, { thinking, toolCalls, json })
  return json
}

interface JoinedPrefix {
  parts: string[]
  joined: string
}

/** Recently joined message lists: a live session's next request extends one of them. */
const recentJoins: JoinedPrefix[] = []
const RECENT_JOINS = 8

/**
 * `parts.join(',')`, reusing the joined text of an earlier request whose messages are a
 * prefix of these (the cached JSON strings compare by identity), so request N of a long
 * session costs its new messages, not all N.
 */
function joinMessages(parts: string[]): string {
  let best: JoinedPrefix | undefined
  // The search for the longest earlier prefix only saves work: a shorter one, or none, joins
  // to the same text (the mutants that only change which prefix is reused: TESTING.md).
  // Stryker disable next-line BlockStatement: equivalent, no reuse joins the same text
  for (const entry of recentJoins) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, skipping an entry or not only changes which prefix is reused
    if (entry.parts.length > parts.length || (best && entry.parts.length <= best.parts.length)) continue
    let i = 0
    while (i < entry.parts.length && entry.parts[i] === parts[i]) i++
    if (i === entry.parts.length) best = entry
  }
  let joined: string
  if (best && best.parts.length > 0) {
    const rest = parts.slice(best.parts.length)
    joined = rest.length > 0 ? `${best.joined},${rest.join(',')}` : best.joined
    recentJoins.splice(recentJoins.indexOf(best), 1)
  } else {
    joined = parts.join(',')
  }
  recentJoins.unshift({ parts, joined })
  if (recentJoins.length > RECENT_JOINS) recentJoins.length = RECENT_JOINS
  return joined
}

const toolListJson = new WeakMap<readonly ToolSchema[], string>()

function toolsJson(tools: readonly ToolSchema[]): string {
  let json = toolListJson.get(tools)
  if (json === undefined) {
    json = JSON.stringify(tools.map(toWireTool))
    toolListJson.set(tools, json)
  }
  return json
}

export function toWireTool(tool: ToolSchema): WireTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }
}
