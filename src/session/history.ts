// Derives the model-facing conversation from a session log. Whatever reaches a model
// request (apart from the configured system prompt and tools) comes from here.

import type { ChatMessage, ToolCallRequest } from '../llm/types.js'
import type { SessionEvent, SessionEventMap } from './types.js'

export function deriveHistory(events: readonly SessionEvent[]): ChatMessage[] {
  const skipped = blockedPromptRanges(events)
  const messages: ChatMessage[] = []
  let lastAssistant: Extract<ChatMessage, { role: 'assistant' }> | undefined
  const unanswered = new Set<string>()
  // Context cannot sit between an assistant's tool calls and their results; it waits.
  let deferred: string[] = []
  const releaseDeferred = () => {
    for (const text of deferred) messages.push({ role: 'user', content: text })
    deferred = []
  }

  for (let index = 0; index < events.length; index++) {
    if (skipped.has(index)) continue
    const event = events[index]!
    switch (event.type) {
      case 'user/message': {
        releaseDeferred()
        messages.push({ role: 'user', content: (event.data as SessionEventMap['user/message']).text })
        lastAssistant = undefined
        break
      }
      case 'context/added': {
        const text = (event.data as SessionEventMap['context/added']).text
        if (unanswered.size > 0) deferred.push(text)
        else messages.push({ role: 'user', content: text })
        break
      }
      case 'assistant/message': {
        releaseDeferred()
        const { message } = event.data as SessionEventMap['assistant/message']
        lastAssistant = { role: 'assistant', content: message.content }
        if (message.reasoning) lastAssistant.reasoning = message.reasoning
        messages.push(lastAssistant)
        break
      }
      case 'tool/call': {
        const call = event.data as SessionEventMap['tool/call']
        if (!lastAssistant) {
          lastAssistant = { role: 'assistant', content: '' }
          messages.push(lastAssistant)
        }
        const request: ToolCallRequest = { id: call.callId, name: call.name, arguments: call.arguments }
        lastAssistant.toolCalls = [...(lastAssistant.toolCalls ?? []), request]
        unanswered.add(call.callId)
        break
      }
      case 'tool/result': {
        const result = event.data as SessionEventMap['tool/result']
        messages.push({ role: 'tool', toolCallId: result.callId, content: result.content })
        unanswered.delete(result.callId)
        if (unanswered.size === 0) releaseDeferred()
        break
      }
      case 'turn/end':
      case 'step/start':
        if (unanswered.size === 0) releaseDeferred()
        break
      default:
        break
    }
  }
  releaseDeferred()
  return messages
}

/** Indexes of turns blocked before the model answered: their prompt never reached the model. */
function blockedPromptRanges(events: readonly SessionEvent[]): Set<number> {
  const skipped = new Set<number>()
  let start = -1
  let answered = false
  events.forEach((event, index) => {
    if (event.type === 'turn/start') {
      start = index
      answered = false
    } else if (event.type === 'assistant/message') {
      answered = true
    } else if (event.type === 'turn/end' && start >= 0) {
      const reason = (event.data as SessionEventMap['turn/end']).reason
      if (reason === 'blocked' && !answered) for (let i = start; i <= index; i++) skipped.add(i)
      start = -1
    }
  })
  return skipped
}
