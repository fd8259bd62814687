// The loopback model's wire protocol, checked with a bare fetch: SSE framing, split
// tool-call arguments, finish and usage chunks, [DONE], JSON errors, auth, non-stream replies.

import { afterEach, describe, expect, it } from 'vitest'
import type { WireChatChunk } from '../../src/llm/index.js'
import { type LoopbackModel, type Script, startLoopbackModel } from '../support/loopback-model.js'

let server: LoopbackModel | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

async function post(script: Script, body: Record<string, unknown>, options: { apiKey?: string } = {}) {
  server = await startLoopbackModel(script, options)
  return fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer right' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body }),
  })
}

describe('startLoopbackModel', () => {
  it('streams OpenAI chunks: role, content, tool calls split over chunks, finish, usage, [DONE]', async () => {
    const response = await post(
      [
        {
          text: 'Two calls.',
          toolCalls: [
            { name: 'a', arguments: { path: 'some/long/path.txt' } },
            { name: 'b', arguments: {} },
          ],
        },
      ],
      {
        stream: true,
      },
    )
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const raw = await response.text()
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true)
    const events = raw.split('\n\n').filter(Boolean)
    for (const event of events) expect(event).toMatch(/^data: /)
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)) as WireChatChunk)
    expect(chunks[0]?.choices?.[0]?.delta).toEqual({ role: 'assistant', content: '' })
    const fragments = chunks.flatMap((chunk) => chunk.choices?.[0]?.delta.tool_calls ?? [])
    const first = fragments.filter((fragment) => fragment.index === 0)
    expect(first.length).toBeGreaterThan(2)
    expect(first[0]).toEqual({
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'a', arguments: '' },
    })
    expect(first.map((fragment) => fragment.function?.arguments).join('')).toBe(
      '{"path":"some/long/path.txt"}',
    )
    expect(fragments.filter((fragment) => fragment.index === 1)[0]).toMatchObject({
      id: 'call_2',
      function: { name: 'b' },
    })
    expect(chunks.at(-2)?.choices?.[0]).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' })
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 1, total_tokens: expect.any(Number) },
    })
    expect(server?.requests[0]).toMatchObject({ model: 'm', stream: true })
  })

  it('answers stream: false with one chat.completion', async () => {
    const response = await post([{ text: 'whole', reasoning: 'r' }], { stream: false })
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [
        { message: { role: 'assistant', content: 'whole', reasoning_content: 'r' }, finish_reason: 'stop' },
      ],
    })
  })

  it('answers faults and exhaustion as JSON errors', async () => {
    const limited = await post([{ status: 429, retryAfter: 7, message: 'slow down' }], { stream: true })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('7')
    expect(await limited.json()).toMatchObject({ error: { message: 'slow down' } })
    const exhausted = await fetch(`${server!.baseUrl}/chat/completions`, {
      method: 'POST',
      body: '{"model":"m","messages":[]}',
    })
    expect(exhausted.status).toBe(500)
    expect((await exhausted.json()).error.message).toContain('script is exhausted')
    expect(server?.remaining).toBe(0)
  })

  it('refuses a wrong key, a bad body and unknown routes', async () => {
    expect((await post([{ text: 'x' }], {}, { apiKey: 'other' })).status).toBe(401)
    expect(
      (
        await fetch(`${server!.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { Authorization: 'Bearer other' },
          body: '{',
        })
      ).status,
    ).toBe(400)
    expect((await fetch(`${server!.baseUrl}/embeddings`)).status).toBe(404)
    expect(server?.requests).toHaveLength(0)
  })

  it('gives a script step the request as dsh messages and tools', async () => {
    let seen: unknown
    await (
      await post(
        [
          (request) => {
            seen = request
            return { text: 'ok' }
          },
        ],
        {
          messages: [
            { role: 'user', content: 'go' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 't', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'c1', content: 'result' },
          ],
          tools: [
            { type: 'function', function: { name: 't', description: 'd', parameters: { type: 'object' } } },
          ],
        },
      )
    ).text()
    expect(seen).toEqual({
      model: 'm',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 't', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', content: 'result' },
      ],
      tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }],
    })
  })
})
