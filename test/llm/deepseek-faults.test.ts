// Each DeepSeek error class against the strict stand-in, through the whole harness:
// retried or not, how many attempts, the line the user reads, the retry notices, and a
// session that stays whole and resumable. Also the stream idle deadline and keep-alives.

import { afterEach, describe, expect, it } from 'vitest'
import type { AgentOutput } from '../../src/agent/index.js'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { createHarness } from '../../src/harness/index.js'
import type { LoopbackModel, Script } from '../../src/llm/index.js'
import type { SessionEventMap } from '../../src/session/index.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-faults-')
const startModel = useLoopbackModels()
const open: (() => Promise<void>)[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!()
})

async function run(script: Script, model: Record<string, unknown> = {}) {
  const server: LoopbackModel = await startModel(script, { strict: true, apiKey: 'k' })
  const home = tempDir()
  const file = validateConfig('test', { dshHome: home, model: { maxRetries: 2, ...model } })
  const harness = await createHarness({
    config: resolveConfig(file, {}),
    model: { baseUrl: server.baseUrl, apiKey: 'k' },
  })
  open.push(() => harness.dispose())
  const agent = await harness.agents.create({ sessionId: 'faults', meta: { cwd: home } })
  const outputs: AgentOutput[] = []
  agent.onOutput((output) => outputs.push(output))
  const result = await agent.prompt('hello')
  const retries = outputs.flatMap((output) => (output.type === 'retry' ? [output.message] : []))
  return { server, harness, agent, result, retries }
}

describe('error classes', () => {
  it.each([
    [
      'auth',
      'authentication failed (HTTP 401: Authentication Fails, Your api key is invalid) — check that DEEPSEEK_API_KEY holds a valid key',
    ],
    ['balance', 'insufficient balance (HTTP 402: Insufficient Balance) — top up the balance'],
    ['invalid', 'invalid request (HTTP 422: Invalid Parameters)'],
    ['overflow', 'context too long (HTTP 400: This model'],
  ] as const)('%s fails at once with one line that says what to do', async (fault, line) => {
    const { server, result, retries, agent } = await run([{ fault }, { text: 'never' }])
    expect(server.requests).toHaveLength(1)
    expect(retries).toEqual([])
    expect(result.reason).toBe('error')
    expect(result.error).toContain(`model request failed: ${line}`)
    expect(result.error).not.toContain('\n')
    if (fault === 'overflow')
      expect(result.error).toContain('compact it (/compact, or dsh sessions compact <id>)')
    // The session is whole: the turn is closed, and the next prompt works.
    expect(agent.session.events.at(-1)?.type).toBe('turn/end')
    expect((await agent.prompt('again')).reason).toBe('completed')
  })

  it.each([
    ['rate-limit', 'rate limit reached'],
    ['server', 'server error'],
    ['overloaded', 'server overloaded'],
  ] as const)('%s is retried with a notice, then succeeds', async (fault, label) => {
    const { server, result, retries } = await run([{ fault, retryAfter: 0 }, { text: 'made it' }])
    expect(server.requests).toHaveLength(2)
    expect(result).toMatchObject({ reason: 'completed', text: 'made it' })
    expect(retries).toEqual([`retrying in 0.0 s (2/3): ${label}`])
  })

  it('gives up after the retries with the attempts counted', async () => {
    const { server, result, retries } = await run([
      { fault: 'overloaded', retryAfter: 0 },
      { fault: 'overloaded', retryAfter: 0 },
      { fault: 'overloaded', retryAfter: 0 },
    ])
    expect(server.requests).toHaveLength(3)
    expect(retries).toHaveLength(2)
    expect(result.error).toBe(
      'model request failed after 3 attempts: server overloaded (HTTP 503: Server Overloaded) — try again in a while',
    )
  })

  it('retries a dropped connection (transport) and finish_reason insufficient_system_resource', async () => {
    const { server, result, retries } = await run([
      { text: 'x', cutAfterChunks: 0 },
      { finishReason: 'insufficient_system_resource' },
      { text: 'third time' },
    ])
    expect(server.requests).toHaveLength(3)
    expect(retries.map((line) => line.replace(/[\d.]+ s/, 'N s'))).toEqual([
      'retrying in N s (2/3): connection failed',
      'retrying in N s (3/3): server overloaded',
    ])
    expect(result.text).toBe('third time')
  })

  it('names the model and points to dsh models when the server does not offer it', async () => {
    const { result, server } = await run([{ text: 'never' }], { name: 'deepseek-reasoner' })
    expect(server.requests).toHaveLength(1)
    expect(result.error).toBe(
      'model request failed: invalid request (HTTP 400: Model Not Exist) — the server does not offer the model "deepseek-reasoner"; `dsh models` lists the ones it does',
    )
  })

  it('ends a turn cut at the output limit with reason length, and a filtered one with content-filter', async () => {
    const cut = await run([
      { text: 'half an ans', finishReason: 'length', toolCalls: [{ name: 'bash', arguments: '{"comm' }] },
    ])
    expect(cut.result.reason).toBe('length')
    expect(cut.result.error).toContain('cut at the output limit')
    // The cut tool call never ran.
    expect(
      cut.agent.session.events.some(
        (event) => event.type === 'tool/result' && !(event.data as SessionEventMap['tool/result']).isError,
      ),
    ).toBe(false)
    const filtered = await run([{ text: 'no', finishReason: 'content_filter' }])
    expect(filtered.result.reason).toBe('content-filter')
  })
})

describe('stream idle deadline', () => {
  it('ends a stalled stream after the deadline as a retryable failure', async () => {
    const { server, result, retries } = await run([{ stallMs: 2000, text: 'late' }, { text: 'fresh' }], {
      streamIdleTimeoutMs: 300,
    })
    expect(server.requests).toHaveLength(2)
    expect(retries[0]).toMatch(/stream stalled$/)
    expect(result.text).toBe('fresh')
  })

  it('does not end a stream that keeps sending keep-alive comments', async () => {
    const { server, result, retries } = await run(
      [{ keepAlive: { count: 6, intervalMs: 100 }, text: 'patient' }],
      {
        streamIdleTimeoutMs: 300,
      },
    )
    expect(server.requests).toHaveLength(1)
    expect(retries).toEqual([])
    expect(result.text).toBe('patient')
  })
})
