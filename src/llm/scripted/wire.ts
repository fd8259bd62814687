// The scripted model on the wire: a resolved reply becomes OpenAI `chat.completion.chunk`
// objects (text and arguments split over several chunks, as real servers do), and a
// received wire request becomes the dsh-typed request a script step sees.

import type {
  WireChatChunk,
  WireChatRequest,
  WireChunkChoice,
  WireCompletion,
  WireMessage,
  WireUsage,
} from '../openai/wire-types.js'
import type { ChatMessage, ToolSchema, Usage } from '../types.js'
import type { ResolvedReply, ScriptRequest } from './script.js'

export interface ChunkMeta {
  id: string
  model: string
  created: number
}

/** Length of one argument fragment: small, so every realistic call spans several chunks. */
const ARGUMENT_FRAGMENT_CHARS = 16

/** The chunks of one streamed reply: role, reasoning, text, tool calls, finish, usage. */
export function encodeReplyChunks(reply: ResolvedReply, meta: ChunkMeta): WireChatChunk[] {
  const chunk = (choices: WireChunkChoice[], usage?: WireUsage): WireChatChunk => {
    const wire: WireChatChunk = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices,
    }
    if (usage) wire.usage = usage
    return wire
  }
  const delta = (d: WireChunkChoice['delta']) => chunk([{ index: 0, delta: d, finish_reason: null }])
  const chunks: WireChatChunk[] = [delta({ role: 'assistant', content: '' })]
  for (const piece of words(reply.reasoning)) chunks.push(delta({ content: null, reasoning_content: piece }))
  for (const piece of words(reply.text)) chunks.push(delta({ content: piece }))
  reply.toolCalls.forEach((call, index) => {
    chunks.push(
      delta({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    )
    for (let at = 0; at < call.arguments.length; at += ARGUMENT_FRAGMENT_CHARS) {
      const piece = call.arguments.slice(at, at + ARGUMENT_FRAGMENT_CHARS)
      chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  })
  chunks.push(chunk([{ index: 0, delta: {}, finish_reason: reply.finishReason }]))
  chunks.push(chunk([], toWireUsage(reply.usage)))
  return chunks
}

/** One content delta, as a runaway server sends it forever (`ScriptReply.endless`). */
export function encodeTextChunk(text: string, meta: ChunkMeta): WireChatChunk {
  return {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  }
}

/** The same reply as one non-streamed `chat.completion`. */
export function encodeCompletion(reply: ResolvedReply, meta: ChunkMeta): WireCompletion {
  const message: WireCompletion['choices'][number]['message'] = { role: 'assistant', content: reply.text }
  if (reply.reasoning) message.reasoning_content = reply.reasoning
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }))
  }
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, finish_reason: reply.finishReason }],
    usage: toWireUsage(reply.usage),
  }
}

export function toWireUsage(usage: Usage): WireUsage {
  const wire: WireUsage = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
  }
  if (usage.cachedTokens !== undefined) {
    wire.prompt_cache_hit_tokens = usage.cachedTokens
    wire.prompt_cache_miss_tokens = usage.promptTokens - usage.cachedTokens
  }
  if (usage.reasoningTokens !== undefined) {
    wire.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens }
  }
  return wire
}

/** A received wire request as a script step sees it. */
export function decodeWireRequest(body: WireChatRequest): ScriptRequest {
  return {
    model: body.model,
    messages: (body.messages ?? []).map(fromWireMessage),
    tools: (body.tools ?? []).map(
      (tool): ToolSchema => ({
        name: tool.function.name,
        description: tool.function.description ?? '',
        parameters: tool.function.parameters ?? {},
      }),
    ),
  }
}

function fromWireMessage(message: WireMessage): ChatMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: textOf(message.content) }
    case 'tool':
      return { role: 'tool', toolCallId: message.tool_call_id, content: textOf(message.content) }
    case 'assistant': {
      const assistant: ChatMessage & { role: 'assistant' } = {
        role: 'assistant',
        content: textOf(message.content),
      }
      if (message.reasoning_content) assistant.reasoning = message.reasoning_content
      if (message.tool_calls?.length) {
        assistant.toolCalls = message.tool_calls.map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        }))
      }
      return assistant
    }
  }
}

/** Content may arrive as a string, null, or an array of text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('')
  }
  return ''
}

/** Splits text into word-sized pieces that concatenate back to it. */
function words(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? []
}
