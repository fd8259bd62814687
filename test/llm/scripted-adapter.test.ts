// The in-process scripted model: replies, reacting steps, faults, exhaustion, abort, unload.

import { describe, expect, it } from 'vitest'
import { LlmErrorCode, ScriptedAdapter, type ScriptRequest } from '../../src/llm/index.js'
import { collect, collectUntilError, loadLlm, textOf, userRequest } from './helpers.js'

describe('ScriptedAdapter', () => {
  it('plays replies in order as ctx.llm, with reasoning, tool calls and usage', async () => {
    const { llm, root, dispose } = await loadLlm(ScriptedAdapter, {
      script: [
        {
          reasoning: 'Need a listing.',
          text: 'Looking.',
          toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }],
        },
        { text: 'Done.' },
      ],
    })
    expect(llm.defaultModel).toBe('scripted')
    const first = await collect(llm.stream(userRequest('list')))
    expect(first.filter((chunk) => chunk.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' } },
    ])
    expect(first.some((chunk) => chunk.type === 'reasoning-delta')).toBe(true)
    expect(first.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool_calls',
      usage: { promptTokens: 1 },
    })
    expect(textOf(await collect(llm.stream(userRequest('more'))))).toBe('Done.')
    const adapter = root.get('llm') as ScriptedAdapter
    expect(adapter.requests.map((request) => request.messages[0]?.content)).toEqual(['list', 'more'])
    expect(adapter.remaining).toBe(0)
    await dispose()
  })

  it('lets a step react to the request, e.g. echo the last tool result', async () => {
    const echo = (request: ScriptRequest) => {
      const last = request.messages.at(-1)
      return { text: last?.role === 'tool' ? `the tool said: ${last.content}` : 'no tool result' }
    }
    const { llm, dispose } = await loadLlm(ScriptedAdapter, { script: [echo] })
    const chunks = await collect(
      llm.stream({
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'bash', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c', content: '42' },
        ],
        tools: [],
      }),
    )
    expect(textOf(chunks)).toBe('the tool said: 42')
    await dispose()
  })

  it('fails an exhausted script with LLM_SCRIPT_EXHAUSTED', async () => {
    const { llm, dispose } = await loadLlm(ScriptedAdapter, { script: [{ text: 'only' }] })
    await collect(llm.stream(userRequest('one')))
    const { error } = await collectUntilError(llm.stream(userRequest('two')))
    expect(error).toMatchObject({ code: LlmErrorCode.ScriptExhausted })
    expect((error as Error).message).toContain('request #2')
    await dispose()
  })

  it('turns faults into the errors the real adapter would give up with', async () => {
    const { llm, dispose } = await loadLlm(ScriptedAdapter, {
      script: [
        { status: 429, retryAfter: 1 },
        { text: 'one two three', cutAfterChunks: 2 },
      ],
    })
    expect((await collectUntilError(llm.stream(userRequest('a')))).error).toMatchObject({
      code: LlmErrorCode.Http,
      status: 429,
    })
    const cut = await collectUntilError(llm.stream(userRequest('b')))
    expect(textOf(cut.chunks)).toBe('one ')
    expect(cut.error).toMatchObject({ code: LlmErrorCode.Network })
    await dispose()
  })

  it('aborts between delayed chunks', async () => {
    const { llm, dispose } = await loadLlm(ScriptedAdapter, {
      script: [{ text: 'a b c d e f', delayMs: 20 }],
    })
    const controller = new AbortController()
    const seen: string[] = []
    let failure: unknown
    try {
      for await (const chunk of llm.stream(userRequest('hi', { signal: controller.signal }))) {
        if (chunk.type === 'text-delta') {
          seen.push(chunk.text)
          controller.abort()
        }
      }
    } catch (error) {
      failure = error
    }
    expect(seen).toEqual(['a '])
    expect(failure).toMatchObject({ code: LlmErrorCode.Aborted })
    await dispose()
  })

  it('registers ctx.llm and removes it when its fiber is disposed', async () => {
    const { root, dispose } = await loadLlm(ScriptedAdapter, { script: [] })
    expect(root.get('llm')).toBeInstanceOf(ScriptedAdapter)
    await dispose()
    expect(root.get('llm')).toBeUndefined()
  })
})
