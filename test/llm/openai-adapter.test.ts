// The OpenAI-compatible adapter against the real loopback server: streaming, tool calls,
// usage, request shape, key and HTTP errors.

import { afterEach, describe, expect, it } from 'vitest'
import { isDshError } from '../../src/core/errors.js'
import {
  LlmErrorCode,
  LlmHttpError,
  OpenAiCompatibleAdapter,
  type OpenAiCompatibleConfig,
  type ToolSchema,
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
const disposers: (() => Promise<void>)[] = []

afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose()
})

async function setup(script: Script, config: OpenAiCompatibleConfig = {}) {
  const server = await startModel(script, { apiKey: 'test-key' })
  const loaded = await loadLlm(OpenAiCompatibleAdapter, {
    baseUrl: server.baseUrl,
    apiKey: 'test-key',
    initialBackoffMs: 1,
    ...config,
  })
  disposers.push(loaded.dispose)
  return { server, llm: loaded.llm, root: loaded.root }
}

const readFile: ToolSchema = {
  name: 'read_file',
  description: 'Reads a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

describe('OpenAiCompatibleAdapter over loopback HTTP', () => {
  it('streams text in several deltas and finishes with usage', async () => {
    const { llm } = await setup([
      { text: 'Hello there, this is a streamed answer.', usage: { promptTokens: 12, completionTokens: 8 } },
    ])
    const chunks = await collect(llm.stream(userRequest('hi')))
    const deltas = chunks.filter((chunk) => chunk.type === 'text-delta')
    expect(deltas.length).toBeGreaterThan(3)
    expect(textOf(chunks)).toBe('Hello there, this is a streamed answer.')
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { promptTokens: 12, completionTokens: 8, totalTokens: 20 },
    })
  })

  it('streams reasoning_content as reasoning deltas before the text', async () => {
    const { llm } = await setup([{ reasoning: 'The user greets me. I should greet back.', text: 'Hi!' }])
    const chunks = await collect(llm.stream(userRequest('hi')))
    const reasoning = chunks.filter((chunk) => chunk.type === 'reasoning-delta')
    expect(reasoning.map((chunk) => (chunk.type === 'reasoning-delta' ? chunk.text : '')).join('')).toBe(
      'The user greets me. I should greet back.',
    )
    expect(chunks.findIndex((chunk) => chunk.type === 'reasoning-delta')).toBeLessThan(
      chunks.findIndex((chunk) => chunk.type === 'text-delta'),
    )
    const finish = chunks.at(-1)
    expect(finish?.type === 'finish' && finish.usage?.reasoningTokens).toBeGreaterThan(0)
  })

  it('assembles two tool calls whose arguments are split across chunks, in model order', async () => {
    const first = { path: 'src/some/rather/long/path/name.ts', encoding: 'utf8' }
    const second = { path: 'README.md' }
    const { llm, server } = await setup([
      {
        text: 'Reading both.',
        toolCalls: [
          { name: 'read_file', arguments: first, id: 'call_a' },
          { name: 'read_file', arguments: second, id: 'call_b' },
        ],
      },
    ])
    const chunks = await collect(llm.stream(userRequest('read', { tools: [readFile] })))
    expect(server.requests).toHaveLength(1)
    const calls = chunks.filter((chunk) => chunk.type === 'tool-call')
    expect(calls).toEqual([
      { type: 'tool-call', call: { id: 'call_a', name: 'read_file', arguments: JSON.stringify(first) } },
      { type: 'tool-call', call: { id: 'call_b', name: 'read_file', arguments: JSON.stringify(second) } },
    ])
    // Tool calls come whole after the text, before the finish.
    const types = chunks.map((chunk) => chunk.type)
    expect(types.slice(-3)).toEqual(['tool-call', 'tool-call', 'finish'])
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' })
  })

  it('keeps invalid tool-call JSON verbatim', async () => {
    const { llm } = await setup([{ toolCalls: [{ name: 'read_file', arguments: '{"path": "a' }] }])
    const chunks = await collect(llm.stream(userRequest('read', { tools: [readFile] })))
    expect(chunks[0]).toMatchObject({
      type: 'tool-call',
      call: { name: 'read_file', arguments: '{"path": "a' },
    })
  })

  it('maps cached and reasoning token counts', async () => {
    const { llm } = await setup([
      {
        text: 'ok',
        usage: { promptTokens: 100, completionTokens: 30, cachedTokens: 64, reasoningTokens: 20 },
      },
    ])
    const chunks = await collect(llm.stream(userRequest('hi')))
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: {
        promptTokens: 100,
        completionTokens: 30,
        totalTokens: 130,
        cachedTokens: 64,
        cacheMissTokens: 36,
        reasoningTokens: 20,
      },
    })
  })

  it('sends the conversation, tools and streaming options in the OpenAI shape', async () => {
    const { llm, server } = await setup([{ text: 'done' }], { model: 'deepseek-v4-pro' })
    await collect(
      llm.stream({
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'read it' },
          {
            role: 'assistant',
            content: '',
            reasoning: 'I need the file.',
            toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' }],
          },
          { role: 'tool', toolCallId: 'call_1', content: 'file body' },
        ],
        tools: [readFile],
        temperature: 0.2,
        maxTokens: 100,
      }),
    )
    expect(server.requests).toEqual([
      {
        model: 'deepseek-v4-pro',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'read it' },
          {
            role: 'assistant',
            content: null,
            reasoning_content: 'I need the file.',
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'file body' },
        ],
        tools: [{ type: 'function', function: readFile }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 100,
        // Thinking by default; temperature is left out, as DeepSeek ignores it in thinking mode.
        thinking: { type: 'enabled' },
        reasoning_effort: 'high',
      },
    ])
  })

  it('uses the model named in the request over the default', async () => {
    const { llm, server } = await setup([{ text: 'a' }])
    expect(llm.defaultModel).toBe('deepseek-flash')
    await collect(llm.stream(userRequest('hi', { model: 'other-model' })))
    expect(server.requests[0]?.model).toBe('other-model')
    expect(server.requests[0]).not.toHaveProperty('tools')
  })

  it('tolerates a trailing slash on the base URL', async () => {
    const server = await startModel([{ text: 'ok' }])
    const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, {
      baseUrl: `${server.baseUrl}/`,
      apiKey: 'k',
    })
    disposers.push(dispose)
    expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('ok')
  })

  it('fails with one clear line naming the variable when no key is set, only when a request is made', async () => {
    const previous = process.env.DSH_TEST_MISSING_KEY
    delete process.env.DSH_TEST_MISSING_KEY
    try {
      const server = await startModel([{ text: 'never' }])
      // Loading succeeds: commands that never reach the model work without a key.
      // A remote server needs a key (a loopback one does not); none is reached here.
      const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, {
        baseUrl: 'http://model.invalid:9',
        apiKeyEnv: 'DSH_TEST_MISSING_KEY',
      })
      disposers.push(dispose)
      const { error } = await collectUntilError(llm.stream(userRequest('hi')))
      expect(isDshError(error, LlmErrorCode.NoApiKey)).toBe(true)
      const dsh = error as LlmHttpError
      expect(dsh.userFacing).toBe(true)
      expect(dsh.message).toContain('DSH_TEST_MISSING_KEY')
      expect(dsh.message).not.toContain('\n')
      expect(server.requests).toHaveLength(0)
    } finally {
      if (previous !== undefined) process.env.DSH_TEST_MISSING_KEY = previous
    }
  })

  it('reads the key from the configured environment variable at request time', async () => {
    const server = await startModel([{ text: 'ok' }], { apiKey: 'from-env' })
    const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, {
      baseUrl: server.baseUrl,
      apiKeyEnv: 'DSH_TEST_LATE_KEY',
    })
    disposers.push(dispose)
    process.env.DSH_TEST_LATE_KEY = 'from-env'
    try {
      expect(textOf(await collect(llm.stream(userRequest('hi'))))).toBe('ok')
    } finally {
      delete process.env.DSH_TEST_LATE_KEY
    }
  })

  it('does not retry a 400 and reports the status and the server message', async () => {
    const { llm, server } = await setup([
      { status: 400, message: 'Invalid tool schema' },
      { text: 'unreached' },
    ])
    const { chunks, error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(chunks).toEqual([])
    expect(error).toBeInstanceOf(LlmHttpError)
    expect(error).toMatchObject({ code: LlmErrorCode.Http, status: 400 })
    expect((error as Error).message).toContain('Invalid tool schema')
    expect(server.requests).toHaveLength(1)
  })

  it('reports a rejected key as a user-facing 401 without retrying', async () => {
    const { llm, server } = await setup([{ text: 'unreached' }], { apiKey: 'wrong-key' })
    const { error } = await collectUntilError(llm.stream(userRequest('hi')))
    expect(error).toMatchObject({ code: LlmErrorCode.Http, status: 401, userFacing: true })
    expect(server.requests).toHaveLength(0)
  })

  it('unregisters ctx.llm when its fiber is disposed', async () => {
    const { root, dispose } = await loadLlm(OpenAiCompatibleAdapter, { apiKey: 'k' })
    expect(root.get('llm')).toBeInstanceOf(OpenAiCompatibleAdapter)
    await dispose()
    expect(root.get('llm')).toBeUndefined()
  })
})

describe('tool calls as other servers stream them', () => {
  /** The tool calls the adapter assembles from a server that streams `events` (then finish and [DONE]). */
  async function callsFrom(events: string[]) {
    const baseUrl = await rawServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.end(`${events.join('')}${sseChunk({}, 'tool_calls')}data: [DONE]\n\n`)
    })
    const { llm, dispose } = await loadLlm(OpenAiCompatibleAdapter, { baseUrl, apiKey: 'k' })
    disposers.push(dispose)
    const chunks = await collect(llm.stream(userRequest('run both', { tools: [readFile] })))
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' })
    return chunks.flatMap((chunk) => (chunk.type === 'tool-call' ? [chunk.call] : []))
  }
  const whole = (fields: Record<string, unknown>, name: string, args: string) =>
    sseChunk({ tool_calls: [{ ...fields, type: 'function', function: { name, arguments: args } }] })

  it('keeps calls apart that all say index 0, each with its own id (Ollama)', async () => {
    const calls = await callsFrom([
      sseChunk({ role: 'assistant', reasoning_content: 'two calls same index' }),
      whole({ index: 0, id: 'call_S1' }, 'bash', '{"command":"echo S1"}'),
      whole({ index: 0, id: 'call_S2' }, 'bash', '{"command":"echo S2"}'),
    ])
    expect(calls).toEqual([
      { id: 'call_S1', name: 'bash', arguments: '{"command":"echo S1"}' },
      { id: 'call_S2', name: 'bash', arguments: '{"command":"echo S2"}' },
    ])
  })

  it('keeps calls apart that come without an index, one whole call per chunk (Gemini)', async () => {
    const calls = await callsFrom([
      whole({ id: 'call_P' }, 'bash', '{"command":"echo P"}'),
      whole({ id: 'call_Q' }, 'bash', '{"command":"echo Q"}'),
      // Neither index nor id: the name of a new call after a complete one starts it.
      whole({}, 'read_file', '{"path":"R"}'),
    ])
    expect(calls).toEqual([
      { id: 'call_P', name: 'bash', arguments: '{"command":"echo P"}' },
      { id: 'call_Q', name: 'bash', arguments: '{"command":"echo Q"}' },
      { id: expect.stringMatching(/^call_/), name: 'read_file', arguments: '{"path":"R"}' },
    ])
  })

  it('joins interleaved fragments of two calls that repeat their index, id or name (DeepSeek, OpenAI)', async () => {
    const fragment = (fields: Record<string, unknown>, fn: Record<string, unknown>) =>
      sseChunk({ tool_calls: [{ ...fields, function: fn }] })
    const calls = await callsFrom([
      whole({ index: 0, id: 'call_a' }, 'bash', ''),
      whole({ index: 1, id: 'call_b' }, 'read_file', '{"pa'),
      fragment({ index: 0 }, { arguments: '{"command":' }),
      // The same id again, and the name repeated while the arguments are still incomplete.
      fragment({ index: 1, id: 'call_b' }, { arguments: 'th":"R' }),
      fragment({ index: 0 }, { name: 'bash', arguments: '"echo A"' }),
      fragment({ index: 1 }, { arguments: '"}' }),
      fragment({ index: 0, id: 'call_a' }, { arguments: '}' }),
    ])
    expect(calls).toEqual([
      { id: 'call_a', name: 'bash', arguments: '{"command":"echo A"}' },
      { id: 'call_b', name: 'read_file', arguments: '{"path":"R"}' },
    ])
  })
})
