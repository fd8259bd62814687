// Stream assembly of wire chunks: tool-call fragments by index, finish and usage mapping.

import { describe, expect, it } from 'vitest'
import { ChatStreamAssembler, LlmErrorCode, type WireChatChunk } from '../../src/llm/index.js'

const delta = (d: Record<string, unknown>, finish: string | null = null): WireChatChunk => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
})

describe('ChatStreamAssembler', () => {
  it('joins interleaved fragments by index and emits the calls in index order at finish_reason', () => {
    const assembler = new ChatStreamAssembler()
    const out = [
      ...assembler.push(
        delta({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'two' } }] }),
      ),
      ...assembler.push(
        delta({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'one' } }] }),
      ),
      ...assembler.push(delta({ tool_calls: [{ index: 1, function: { arguments: '{"y":' } }] })),
      ...assembler.push(delta({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] })),
      ...assembler.push(delta({ tool_calls: [{ index: 1, function: { name: 'two', arguments: '2}' } }] })),
    ]
    expect(out).toEqual([])
    expect(assembler.push(delta({}, 'tool_calls'))).toEqual([
      { type: 'tool-call', call: { id: 'a', name: 'one', arguments: '{"x":1}' } },
      { type: 'tool-call', call: { id: 'b', name: 'two', arguments: '{"y":2}' } },
    ])
    expect(assembler.finish()).toEqual([{ type: 'finish', finishReason: 'tool_calls' }])
  })

  it('emits pending calls at the end when no finish_reason came', () => {
    const assembler = new ChatStreamAssembler()
    assembler.push(delta({ tool_calls: [{ id: 'a', function: { name: 'whole', arguments: '{}' } }] }))
    expect(assembler.messageFinished).toBe(false)
    expect(assembler.finish()).toEqual([
      { type: 'tool-call', call: { id: 'a', name: 'whole', arguments: '{}' } },
      { type: 'finish', finishReason: 'tool_calls' },
    ])
  })

  it('invents an id for a call without one and rejects a call without a name', () => {
    const named = new ChatStreamAssembler()
    named.push(delta({ tool_calls: [{ index: 0, function: { name: 'x', arguments: '{}' } }] }))
    const [chunk] = named.push(delta({}, 'tool_calls'))
    expect(chunk?.type === 'tool-call' && chunk.call.id).toMatch(/^call_/)

    const nameless = new ChatStreamAssembler()
    nameless.push(delta({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }))
    expect(() => nameless.push(delta({}, 'tool_calls'))).toThrow(
      expect.objectContaining({ code: LlmErrorCode.Protocol }),
    )
  })

  it('maps usage in the OpenAI and the DeepSeek spelling', () => {
    const openai = new ChatStreamAssembler()
    openai.push(delta({ content: 'hi' }, 'stop'))
    openai.push({
      choices: [],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    })
    expect(openai.finish()).toEqual([
      {
        type: 'finish',
        finishReason: 'stop',
        usage: {
          promptTokens: 10,
          completionTokens: 5,
          totalTokens: 15,
          cachedTokens: 4,
          reasoningTokens: 2,
        },
      },
    ])
    const deepseek = new ChatStreamAssembler()
    deepseek.push({
      choices: [],
      usage: { prompt_tokens: 7, completion_tokens: 3, prompt_cache_hit_tokens: 6 },
    })
    expect(deepseek.finish()).toEqual([
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10, cachedTokens: 6 },
      },
    ])
  })

  it('passes text and reasoning through, skipping empty deltas, and maps function_call', () => {
    const assembler = new ChatStreamAssembler()
    expect(assembler.push(delta({ role: 'assistant', content: '' }))).toEqual([])
    expect(assembler.push(delta({ content: null, reasoning_content: 'think' }))).toEqual([
      { type: 'reasoning-delta', text: 'think' },
    ])
    expect(assembler.push(delta({ reasoning: 'more' }))).toEqual([{ type: 'reasoning-delta', text: 'more' }])
    expect(assembler.push(delta({ content: 'say' }, 'length'))).toEqual([{ type: 'text-delta', text: 'say' }])
    expect(assembler.finish()).toEqual([{ type: 'finish', finishReason: 'length' }])
    const legacy = new ChatStreamAssembler()
    legacy.push(delta({}, 'function_call'))
    expect(legacy.finish()).toEqual([{ type: 'finish', finishReason: 'tool_calls' }])
  })
})
