// Request building: wire message shapes and the DeepSeek reasoning_content rule.

import { describe, expect, it } from 'vitest'
import { type ChatMessage, toWireMessages } from '../../src/llm/index.js'

const call = (id: string) => ({ id, name: 'bash', arguments: '{"command":"ls"}' })

describe('toWireMessages', () => {
  it('sends reasoning_content only for tool-calling assistant messages after the last user message', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: '', reasoning: 'old turn thinking', toolCalls: [call('c1')] },
      { role: 'tool', toolCallId: 'c1', content: 'out' },
      { role: 'assistant', content: 'old answer', reasoning: 'old final thinking' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'let me look', reasoning: 'current thinking', toolCalls: [call('c2')] },
      { role: 'tool', toolCallId: 'c2', content: 'out' },
    ]
    const wire = toWireMessages(messages)
    expect(wire.map((message) => 'reasoning_content' in message)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      false,
    ])
    expect(wire[6]).toEqual({
      role: 'assistant',
      content: 'let me look',
      reasoning_content: 'current thinking',
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    })
    // A final answer never carries reasoning back.
    expect(wire[4]).toEqual({ role: 'assistant', content: 'old answer' })
  })

  it('sends null content for a tool-calling message without text, and no reasoning when there is none', () => {
    const wire = toWireMessages([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [call('c1')] },
    ])
    expect(wire[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    })
  })
})
