// Failure handling of the OpenAI-compatible adapter against real HTTP: retries on 429,
// 5xx and dropped connections, Retry-After, cuts after output, abort, malformed streams.

import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import {
  LlmErrorCode,
  type LlmRetryInfo,
  OpenAiCompatibleAdapter,
  type OpenAiCompatibleConfig,
} from '../../src/llm/index.js'
import { type Script, useLoopbackModels } from '../support/loopback-model.js'
import {
  collect,
  collectUntilError,
  loadLlm,
  sseChunk,
  textOf,
  useRawServers,
  userRequest,
} from './helpers.js'

const startModel = useLoopbackModels()
const rawServer = useRawServers()
const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/**
 * An adapter whose server answers each request with `answer` (`hit`: the request's number,
 * from 1); `hits()` counts the requests. Retries wait 1 ms.
 */
async function rawAdapter(answer: (res: ServerResponse, hit: number) => void) {
  let hits = 0
  const baseUrl = await rawServer((_req, res) => {
    hits += 1
    answer(res, hits)
  })
  const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, {
    baseUrl,
    apiKey: 'k',
    initialBackoffMs: 1,
  })
  cleanups.push(dispose)
  return { llm, hits: () => hits }
}

async function setup(script: Script, config: OpenAiCompatibleConfig = {}) {
  const server = await startModel(script)
  const loaded = await loadLlm(OpenAiCompatibleAdapter, {
    baseUrl: server.baseUrl,
    apiKey: 'k',
    initialBackoffMs: 1,
    maxBackoffMs: 5,
    ...config,
  })
  cleanups.push(loaded.dispose)
  const retries: LlmRetryInfo[] = []
  loaded.root.on('llm/retry', (info) => {
    retries.push(info)
  })
  const answering = { count: 0 }
  loaded.root.on('llm/answering', () => {
    answering.count += 1
  })
  return { server, llm: loaded.llm, retries, answering }
}

describe('retries', () => {
  it('honours Retry-After on 429, then succeeds', async () => {
    const { llm, server, retries, answering } = await setup([
      { status: 429, retryAfter: 0.3 },
      { text: 'after the wait' },
    ])
    const started = Date.now()
    const chunks = await collect(llm.stream(userRequest('hi')))
    expect(Date.now() - started).toBeGreaterThanOrEqual(280)
    expect(textOf(chunks)).toBe('after the wait')
    expect(server.requests).toHaveLength(2)
    // Only the accepted request's answer streams: the 429 is not "answering".
    expect(answering.count).toBe(1)
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({
      attempt: 1,
      maxAttempts: 5,
      delayMs: 300,
      failure: { class: 'rate-limit', status: 429 },
    })
  })

  it('caps a long Retry-After at maxRetryAfterMs', async () => {
    const { llm, retries } = await setup([{ status: 429, retryAfter: 3600 }, { text: 'ok' }], {
      maxRetryAfterMs: 20,
    })
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('ok')
    expect(retries[0]?.delayMs).toBe(20)
  })

  it('accepts Retry-After as an HTTP date', async () => {
    const { llm, retries } = await setup([
      { status: 503, retryAfter: new Date(Date.now() - 1000).toUTCString() },
      { text: 'ok' },
    ])
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('ok')
    expect(retries[0]?.delayMs).toBe(0)
  })

  it('retries 500 and 502 with backoff, then succeeds', async () => {
    const { llm, server, retries } = await setup([{ status: 500 }, { status: 502 }, { text: 'third time' }])
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('third time')
    expect(server.requests).toHaveLength(3)
    expect(retries.map((retry) => retry.attempt)).toEqual([1, 2])
    for (const retry of retries) expect(retry.delayMs).toBeLessThanOrEqual(5)
  })

  it('gives up after maxRetries with the last status', async () => {
    const { llm, server } = await setup(
      [{ status: 500 }, { status: 500 }, { status: 503, message: 'overloaded' }],
      {
        maxRetries: 2,
      },
    )
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Http, status: 503 })
    expect((error as Error).message).toBe(
      'model request failed after 3 attempts: server overloaded (HTTP 503: overloaded) — try again in a while',
    )
    expect(server.requests).toHaveLength(3)
  })

  it('reports an exhausted loopback script as a 500 after retrying', async () => {
    const { llm } = await setup([], { maxRetries: 1 })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Http, status: 500 })
    expect((error as Error).message).toContain('script is exhausted')
  })

  it('retries a connection refused and then reports LLM_NETWORK', async () => {
    const closed = await startModel([])
    const baseUrl = closed.baseUrl
    await closed.close()
    const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, {
      baseUrl,
      apiKey: 'k',
      maxRetries: 2,
      initialBackoffMs: 1,
    })
    cleanups.push(dispose)
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Network })
    expect((error as Error).message).toContain('after 3 attempts')
  })
})

describe('dropped connections', () => {
  it('retries a stream cut before anything was yielded, without duplicating output', async () => {
    const { llm, server } = await setup([
      { text: 'never shown', cutAfterChunks: 0 },
      // Only the role chunk (empty content) gets through: still nothing yielded.
      { text: 'never shown either', cutAfterChunks: 1 },
      { text: 'the real answer' },
    ])
    const chunks = await collect(llm.stream(userRequest('hi')))
    expect(textOf(chunks)).toBe('the real answer')
    expect(server.requests).toHaveLength(3)
  })

  it('reports a stream cut after output as LLM_NETWORK without retrying', async () => {
    const { llm, server } = await setup([
      { text: 'one two three four five', cutAfterChunks: 3 },
      { text: 'unused' },
    ])
    const { chunks, error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(textOf(chunks)).toBe('one two ')
    expect(chunks.some((chunk) => chunk.type === 'finish')).toBe(false)
    expect(error).toMatchObject({ code: LlmErrorCode.Network })
    expect((error as Error).message).toContain('after it had started')
    expect(server.requests).toHaveLength(1)
  })

  it('accepts a stream that ends after the final chunk without [DONE]', async () => {
    // Events: role, "ok", finish, usage, [DONE]: cut before [DONE].
    const { llm } = await setup([
      { text: 'ok', cutAfterChunks: 4, usage: { promptTokens: 1, completionTokens: 1 } },
    ])
    const chunks = await collect(llm.stream(userRequest('hi')))
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    })
  })

  it('accepts a connection lost after the finish chunk, and says the usage was lost', async () => {
    // Events: role, "ok", finish, usage, [DONE]: cut before the usage.
    const { llm, server } = await setup([{ text: 'ok', cutAfterChunks: 3 }])
    const chunks = await collect(llm.stream(userRequest('hi')))
    expect(chunks).toEqual([
      { type: 'text-delta', text: 'ok' },
      { type: 'finish', finishReason: 'stop', usageLost: true },
    ])
    expect(server.requests).toHaveLength(1)
  })

  it('finishes a complete stream that reports no usage without saying any was lost', async () => {
    // Some local servers never send usage; their stream still ends with [DONE].
    const { llm } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.end(`${sseChunk({ content: 'all here' })}${sseChunk({}, 'stop')}data: [DONE]\n\n`)
    })
    expect(await collect(llm.stream(userRequest('hi')))).toEqual([
      { type: 'text-delta', text: 'all here' },
      { type: 'finish', finishReason: 'stop' },
    ])
  })

  it('treats a silent server as a dropped connection after requestTimeoutMs', async () => {
    const { llm, server } = await setup([{ text: 'too slow', delayMs: 400 }, { text: 'fast' }], {
      requestTimeoutMs: 100,
    })
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('fast')
    expect(server.requests).toHaveLength(2)
  })
})

describe('stream bounds', () => {
  it('ends a stream that never finishes at streamMaxDurationMs, as runaway, without retrying', async () => {
    const { llm, server, retries } = await setup(
      [{ endless: { text: 'more ', intervalMs: 5 } }, { text: 'never asked' }],
      { streamMaxDurationMs: 300, maxRetries: 3 },
    )
    const { chunks, error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.StreamBound, failure: { class: 'runaway' } })
    expect((error as Error).message).toMatch(
      /^model request failed: response past its bound \(the answer was still streaming after 300 ms \(model\.streamMaxDurationMs\)\)/,
    )
    expect(textOf(chunks)).toMatch(/^(more )+$/)
    expect(server.requests).toHaveLength(1)
    expect(retries).toHaveLength(0)
  })

  it('ends a stream past streamMaxBytes of text, keeping what came before the bound', async () => {
    const { llm, server } = await setup(
      [{ endless: { text: 'x'.repeat(100), intervalMs: 1 } }, { text: 'no' }],
      {
        streamMaxBytes: 1000,
        maxRetries: 3,
      },
    )
    const { chunks, error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.StreamBound, failure: { class: 'runaway' } })
    expect((error as Error).message).toContain('the answer passed 1000 bytes of text (model.streamMaxBytes)')
    expect(textOf(chunks).length).toBe(1000)
    expect(server.requests).toHaveLength(1)
  })

  it('lets an answer of exactly streamMaxBytes through', async () => {
    const { llm } = await setup([{ text: 'abcd efgh' }], { streamMaxBytes: 9 })
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('abcd efgh')
  })
})

describe('abort', () => {
  it('aborts mid-stream with LLM_ABORTED', async () => {
    const { llm } = await setup([{ text: 'a b c d e f g h i j k l m n o p', delayMs: 1000 }])
    const controller = new AbortController()
    const chunks = []
    let failure: unknown
    const started = Date.now()
    try {
      for await (const chunk of llm.stream(userRequest('hi', { signal: controller.signal }))) {
        chunks.push(chunk)
        if (chunk.type === 'text-delta') controller.abort()
      }
    } catch (error) {
      failure = error
    }
    expect(failure).toMatchObject({ code: LlmErrorCode.Aborted })
    expect(chunks).toHaveLength(1)
    // Unaborted, the reply would take 16 s; half of that leaves room for a busy machine.
    expect(Date.now() - started).toBeLessThan(8_000)
  })

  it('aborts while waiting for headers', async () => {
    const baseUrl = await rawServer(() => {
      // Never answers.
    })
    const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, { baseUrl, apiKey: 'k' })
    cleanups.push(dispose)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const { error } = await collectUntilError(llm.stream(userRequest('hi', { signal: controller.signal })))
    expect(error).toMatchObject({ code: LlmErrorCode.Aborted })
  })

  it('aborts during the backoff sleep', async () => {
    const { llm, server, retries } = await setup([{ status: 429, retryAfter: 30 }, { text: 'unreached' }])
    const controller = new AbortController()
    const pending = collectUntilError(llm.stream(userRequest('hi', { signal: controller.signal })))
    while (retries.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const started = Date.now()
    controller.abort()
    const { error } = await pending
    expect(error).toMatchObject({ code: LlmErrorCode.Aborted })
    // Unaborted, the backoff would wait the 30 s Retry-After.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(server.requests).toHaveLength(1)
  })

  it('refuses an already aborted signal without a request', async () => {
    const { llm, server } = await setup([{ text: 'unreached' }])
    const { error } = await collectUntilError(llm.stream(userRequest('hi', { signal: AbortSignal.abort() })))
    expect(error).toMatchObject({ code: LlmErrorCode.Aborted })
    expect(server.requests).toHaveLength(0)
  })

  it('releases the connection when the consumer stops early', async () => {
    const { llm, server } = await setup([{ text: 'a b c d e f', delayMs: 20 }, { text: 'next' }])
    for await (const chunk of llm.stream(userRequest('hi'))) {
      if (chunk.type === 'text-delta') break
    }
    expect(textOf(await collect(llm.stream(userRequest('again'))))).toBe('next')
    expect(server.requests).toHaveLength(2)
  })
})

describe('a model that does not think', () => {
  it('says to set effort off when the server refuses thinking (Ollama, a model without it)', async () => {
    const { llm, hits } = await rawAdapter((res) => {
      // Ollama's OpenAI-compatible route, model without the thinking capability.
      res.writeHead(400, { 'Content-Type': 'application/json' })
      res.end(
        JSON.stringify({
          error: { message: '"qwen2.5-coder:7b" does not support thinking', type: 'api_error', param: null },
        }),
      )
    })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect((error as Error).message).toMatch(
      /does not support thinking.* — the model cannot think: set model\.effort: off in the config \(or pass --effort off\)$/,
    )
    expect(hits()).toBe(1)
  })
})

describe('malformed answers', () => {
  it('reports non-JSON event data as LLM_PROTOCOL without retrying, quoting it', async () => {
    const { llm, hits } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.end('data: this is not json\n\n')
    })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Protocol })
    expect((error as Error).message).toBe('model stream is malformed: not a JSON object: "this is not json"')
    expect(hits()).toBe(1)
  })

  it('quotes only the start of long malformed event data, on one line', async () => {
    const { llm } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.end(`data: <html>\ndata: ${'x'.repeat(5000)}\n\n`)
    })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    const { message } = error as Error
    expect(message).toMatch(
      /^model stream is malformed: not a JSON object: "<html>\\nx+"… \(5007 characters\)$/,
    )
    expect(message.length).toBeLessThan(200)
  })

  it('skips events whose data is blank', async () => {
    const { llm } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write(': keep-alive\n\n')
      res.write('data:\n\n')
      res.write('data: \n\n')
      res.write('data:  \t \n\n')
      res.end(`${sseChunk({ content: 'after empty' })}${sseChunk({}, 'stop')}data: [DONE]\n\n`)
    })
    expect(await collect(llm.stream(userRequest('hi')))).toEqual([
      { type: 'text-delta', text: 'after empty' },
      { type: 'finish', finishReason: 'stop' },
    ])
  })

  it('reports a finished tool call without a name as LLM_PROTOCOL', async () => {
    const { llm } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      const call = { index: 0, id: 'c', function: { arguments: '{}' } }
      const chunk = { choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: 'tool_calls' }] }
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`)
    })
    const { chunks, error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(chunks).toEqual([])
    expect(error).toMatchObject({ code: LlmErrorCode.Protocol })
  })

  it('reports a JSON answer to a streamed request as LLM_PROTOCOL', async () => {
    const { llm } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end('{"choices":[]}')
    })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Protocol })
  })

  it('reports a 200 answer of another content type (a proxy login page) by its type, without retrying', async () => {
    const { llm, hits } = await rawAdapter((res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      res.end('<html><body>Please log in to the proxy</body></html>')
    })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Protocol })
    expect((error as Error).message).toBe(
      'model stream is malformed: the model server answered text/html; charset=utf-8 instead of an event stream (text/event-stream)',
    )
    expect(hits()).toBe(1)
  })

  it('reads an answer without a content type as an event stream', async () => {
    const { llm } = await rawAdapter((res) => {
      res.writeHead(200)
      res.end(`${sseChunk({ content: 'untyped' })}${sseChunk({}, 'stop')}data: [DONE]\n\n`)
    })
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('untyped')
  })

  it('retries an error event sent before any output', async () => {
    const { llm, hits } = await rawAdapter((res, hit) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      if (hit === 1) {
        res.end('data: {"error":{"message":"upstream overloaded"}}\n\n')
        return
      }
      const chunk = { choices: [{ index: 0, delta: { content: 'fine' }, finish_reason: 'stop' }] }
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`)
    })
    const chunks = await collect(llm.stream(userRequest('hi')))
    expect(chunks).toEqual([
      { type: 'text-delta', text: 'fine' },
      { type: 'finish', finishReason: 'stop' },
    ])
    expect(hits()).toBe(2)
  })
})
