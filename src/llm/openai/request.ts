// Request building: a ModelRequest becomes the JSON body of a streamed
// `POST /chat/completions`.

import type { ModelRequest } from '../adapter.js'
import type { ChatMessage, ToolSchema } from '../types.js'
import type { WireChatRequest, WireMessage, WireTool } from './wire-types.js'

/** The streamed Chat Completions body for `request`, asking for usage in the final chunk. */
export function buildChatRequest(request: ModelRequest, model: string): WireChatRequest {
  const body: WireChatRequest = {
    model,
    messages: toWireMessages(request.messages),
    stream: true,
    stream_options: { include_usage: true },
  }
  // Some compatible servers reject an empty tools array.
  if (request.tools.length > 0) body.tools = request.tools.map(toWireTool)
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
  return body
}

/**
 * Converts the conversation to wire messages. DeepSeek thinking mode needs the
 * `reasoning_content` of the assistant messages of the tool-calling turn in progress
 * (tool calls after the last user message) and must not get it anywhere else.
 */
export function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  let lastUser = -1
  messages.forEach((message, index) => {
    if (message.role === 'user') lastUser = index
  })
  return messages.map((message, index) => toWireMessage(message, index > lastUser))
}

function toWireMessage(message: ChatMessage, inCurrentTurn: boolean): WireMessage {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
  }
  if (message.role !== 'assistant') return { role: message.role, content: message.content }
  const calls = message.toolCalls ?? []
  if (calls.length === 0) return { role: 'assistant', content: message.content }
  const wire: WireMessage = {
    role: 'assistant',
    content: message.content === '' ? null : message.content,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  }
  if (inCurrentTurn && message.reasoning) wire.reasoning_content = message.reasoning
  return wire
}

export function toWireTool(tool: ToolSchema): WireTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }
}
