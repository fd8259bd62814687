// Request building: wire message shapes, the reasoning passback rule, effort fields,
// and the cached JSON encoding that must equal JSON.stringify of the built body.

import { describe, expect, it, vi } from 'vitest'
import { rememberImageEncoding } from '../../src/llm/image-encoding.js'
import {
  buildChatRequest,
  type ChatMessage,
  encodeChatRequest,
  type ModelRequest,
  type RequestDefaults,
  toWireMessages,
} from '../../src/llm/index.js'
import type { ImageRef } from '../../src/llm/types.js'

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

  it('sends tool results with their call id, and an assistant text without calls as it is, even empty', () => {
    const wire = toWireMessages(
      [
        { role: 'tool', toolCallId: 'c9', content: 'result' },
        { role: 'assistant', content: '' },
        { role: 'system', content: 's' },
      ],
      { thinking: false },
    )
    expect(wire).toEqual([
      { role: 'tool', tool_call_id: 'c9', content: 'result' },
      { role: 'assistant', content: '' },
      { role: 'system', content: 's' },
    ])
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

describe('request fields', () => {
  const tools = [{ name: 'bash', description: 'runs', parameters: { type: 'object' } }]
  const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }]
  const both = (request: ModelRequest, given: RequestDefaults = defaults) => {
    const body = buildChatRequest(request, given)
    expect(encodeChatRequest(request, given)).toBe(JSON.stringify(body))
    return body as unknown as Record<string, unknown>
  }

  it('streams with usage in the last chunk, and takes unset fields from the defaults', () => {
    expect(both({ messages, tools: [] })).toEqual({
      model: 'deepseek-flash',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1000,
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
    })
    const chosen = both(
      { messages, tools, model: 'deepseek-pro', maxTokens: 5, effort: 'low' },
      { ...defaults, effort: 'max' },
    )
    expect(chosen).toMatchObject({ model: 'deepseek-pro', max_tokens: 5, reasoning_effort: 'low' })
    expect(both({ messages, tools }, { ...defaults, effort: 'off' })).toMatchObject({
      thinking: { type: 'disabled' },
    })
    expect(both({ messages, tools }, { ...defaults, effort: 'max' }).reasoning_effort).toBe('max')
  })

  it('sends temperature only with thinking off, and never an empty tools list', () => {
    expect('temperature' in both({ messages, tools, effort: 'high', temperature: 0.2 })).toBe(false)
    expect('temperature' in both({ messages, tools, effort: 'off' })).toBe(false)
    expect(both({ messages, tools, effort: 'off', temperature: 0 }).temperature).toBe(0)
    expect('tools' in both({ messages, tools: [] })).toBe(false)
    expect(both({ messages, tools }).tools).toEqual([
      { type: 'function', function: { name: 'bash', description: 'runs', parameters: { type: 'object' } } },
    ])
  })

  it('sends a user message with images as its text, then one data URL part per image', () => {
    const image = (sha256: string): ImageRef => ({
      sha256,
      mediaType: 'image/png',
      name: `${sha256}.png`,
      width: 1,
      height: 1,
      bytes: 3,
    })
    const [a, b] = [image('a'.repeat(64)), image('b'.repeat(64))]
    rememberImageEncoding(a, Buffer.from('AAA'))
    rememberImageEncoding(b, Buffer.from('BBB'))
    const url = (data: string) => `data:image/png;base64,${Buffer.from(data).toString('base64')}`
    const wire = toWireMessages(
      [
        { role: 'user', content: 'look', images: [a, b] },
        { role: 'user', content: '', images: [b] },
        { role: 'user', content: 'no images', images: [] },
      ],
      { thinking: true },
    )
    expect(wire).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: url('AAA') } },
          { type: 'image_url', image_url: { url: url('BBB') } },
        ],
      },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: url('BBB') } }] },
      { role: 'user', content: 'no images' },
    ])
  })

  it('encodes a message again when its tool calls change or thinking is switched', () => {
    const assistant: ChatMessage = { role: 'assistant', content: 'x' }
    const convo: ChatMessage[] = [{ role: 'user', content: 'go' }, assistant]
    const check = (effort: 'off' | 'high') => {
      const request: ModelRequest = { messages: convo, tools, effort }
      expect(encodeChatRequest(request, defaults)).toBe(JSON.stringify(buildChatRequest(request, defaults)))
    }
    check('high')
    check('off')
    assistant.toolCalls = [call('late')] // a streamed message completes its calls after a first encoding
    check('off')
    assistant.toolCalls = [call('later')]
    check('off')
    check('high')
  })

  it('encodes only what is new: earlier messages and the tool list come from the cache', () => {
    const convo: ChatMessage[] = [...conversation]
    encodeChatRequest({ messages: convo, tools }, defaults)
    convo.push({ role: 'user', content: 'next' })
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      encodeChatRequest({ messages: convo, tools }, defaults)
      const encoded = stringify.mock.calls.map(([value]) => value)
      // The new message alone, then the model name and the fields after the messages.
      expect(
        encoded.filter((value) => typeof value === 'object' && value !== null && 'role' in value),
      ).toEqual([{ role: 'user', content: 'next' }])
      expect(encoded.filter((value) => Array.isArray(value))).toEqual([])
    } finally {
      stringify.mockRestore()
    }
  })

  it('encodes exactly JSON.stringify of the built body when sessions interleave, branch and repeat', () => {
    // Requests of several conversations that share message objects (forks) or not, in an
    // order that makes the joined-prefix reuse pick among many earlier requests.
    const shared: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'start' },
    ]
    const branches: ChatMessage[][] = [[...shared], [...shared], [{ role: 'system', content: 'other' }], []]
    for (let step = 0; step < 30; step++) {
      const branch = branches[(step * 7) % branches.length]!
      if (step % 3 !== 2) {
        branch.push(
          { role: 'assistant', content: `a${step}`, reasoning: ` r${step}\n`, toolCalls: [call(`c${step}`)] },
          { role: 'tool', toolCallId: `c${step}`, content: `out ${step}` },
        )
      }
      for (const messagesNow of [branch, branch.slice(0, Math.max(0, branch.length - 2)), branch]) {
        const request: ModelRequest = { messages: [...messagesNow], tools }
        expect(encodeChatRequest(request, defaults), `step ${step}`).toBe(
          JSON.stringify(buildChatRequest(request, defaults)),
        )
      }
    }
  })
})
