// Request building: wire message shapes, the reasoning passback rule, effort fields,
// and the cached JSON encoding that must equal JSON.stringify of the built body.

import { describe, expect, it } from 'vitest'
import {
  buildChatRequest,
  type ChatMessage,
  encodeChatRequest,
  type ModelRequest,
  toWireMessages,
} from '../../src/llm/index.js'

const call = (id: string) => ({ id, name: 'bash', arguments: '{"command":"ls"}' })
const defaults = { model: 'deepseek-flash', maxTokens: 1000 }

// Real reasoning often starts or ends in whitespace and newlines; DeepSeek refuses reasoning
// that comes back altered, so the fixtures carry edges a trim would change.
const OLD_TURN = '\n  old turn thinking\n'
const OLD_FINAL = 'old final thinking\n\n'
const CURRENT = '\tcurrent thinking \r\n'

const conversation: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'first' },
  { role: 'assistant', content: '', reasoning: OLD_TURN, toolCalls: [call('c1')] },
  { role: 'tool', toolCallId: 'c1', content: 'out' },
  { role: 'assistant', content: 'old answer', reasoning: OLD_FINAL },
  { role: 'user', content: 'second' },
  { role: 'assistant', content: 'made without thinking', toolCalls: [call('c2')] },
  { role: 'tool', toolCallId: 'c2', content: 'out' },
  { role: 'assistant', content: 'let me look', reasoning: CURRENT, toolCalls: [call('c3')] },
  { role: 'tool', toolCallId: 'c3', content: 'out' },
]

describe('toWireMessages', () => {
  it('passes back the reasoning of every earlier assistant message, byte-exact, across turns', () => {
    const wire = toWireMessages(conversation, { thinking: true })
    expect(wire[2]).toMatchObject({
      role: 'assistant',
      content: null,
      reasoning_content: OLD_TURN,
    })
    expect(wire[4]).toEqual({
      role: 'assistant',
      content: 'old answer',
      reasoning_content: OLD_FINAL,
    })
    expect(wire[8]).toEqual({
      role: 'assistant',
      content: 'let me look',
      reasoning_content: CURRENT,
      tool_calls: [{ id: 'c3', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    })
  })

  it('sends reasoning_content "" for an assistant message without reasoning only in thinking mode', () => {
    expect(toWireMessages(conversation, { thinking: true })[6]).toMatchObject({ reasoning_content: '' })
    const off = toWireMessages(conversation, { thinking: false })
    expect('reasoning_content' in off[6]!).toBe(false)
    // Reasoning that exists is still sent back: the prefix of the conversation stays the same.
    expect(off[2]).toMatchObject({ reasoning_content: OLD_TURN })
  })

  it('sends null content for a tool-calling message without text', () => {
    const wire = toWireMessages(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [call('c1')] },
      ],
      { thinking: false },
    )
    expect(wire[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    })
  })
})

describe('buildChatRequest and encodeChatRequest', () => {
  const tools = [{ name: 'bash', description: 'runs', parameters: { type: 'object' } }]

  it('sends thinking enabled with reasoning_effort, or thinking disabled without it', () => {
    const high = buildChatRequest({ messages: conversation, tools }, defaults)
    expect(high).toMatchObject({ thinking: { type: 'enabled' }, reasoning_effort: 'high', max_tokens: 1000 })
    const max = buildChatRequest({ messages: conversation, tools, effort: 'max' }, defaults)
    expect(max.reasoning_effort).toBe('max')
    const off = buildChatRequest({ messages: conversation, tools, effort: 'off', temperature: 0.3 }, defaults)
    expect(off.thinking).toEqual({ type: 'disabled' })
    expect('reasoning_effort' in off).toBe(false)
    expect(off.temperature).toBe(0.3)
  })

  it('encodes exactly JSON.stringify of the built body, for every effort, twice in a row', () => {
    for (const effort of ['off', 'low', 'high', 'max'] as const) {
      const request: ModelRequest = { messages: conversation, tools, effort, temperature: 0.5, maxTokens: 77 }
      const expected = JSON.stringify(buildChatRequest(request, defaults))
      expect(encodeChatRequest(request, defaults)).toBe(expected)
      expect(encodeChatRequest(request, defaults)).toBe(expected)
    }
    expect(encodeChatRequest({ messages: conversation, tools: [] }, defaults)).toBe(
      JSON.stringify(buildChatRequest({ messages: conversation, tools: [] }, defaults)),
    )
  })

  it('keeps each request a byte prefix of the next as the conversation grows', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
    ]
    let previous = ''
    for (let step = 0; step < 5; step++) {
      const body = encodeChatRequest({ messages: [...messages], tools }, defaults)
      // Everything up to the end of the messages array, without its closing bracket.
      const head = body.slice(0, body.indexOf('],"tools":'))
      if (previous) expect(head.startsWith(previous)).toBe(true)
      previous = head
      messages.push(
        { role: 'assistant', content: '', reasoning: `r${step}`, toolCalls: [call(`c${step}`)] },
        { role: 'tool', toolCallId: `c${step}`, content: `out ${step}` },
      )
    }
  })
})
