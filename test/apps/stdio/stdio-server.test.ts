// `dsh stdio` driven in-process over PassThrough streams against the real composition
// (JSONL on a temp home) and the loopback model.

import { existsSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { echoToolPlugin } from '../../support/echo-tool.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { startStdioClient } from './stdio-client.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-home-')

describe('dsh stdio', () => {
  it('resumes or creates an exact session id across two runs on one home, streaming the turn', async () => {
    const home = tempHome()
    const first = await start({
      home,
      script: [
        { reasoning: 'think', toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] },
        { text: 'all done' },
      ],
    })
    await first.harness.ctx.plugin(echoToolPlugin).await()
    const client = startStdioClient(first.harness)

    const init = await client.request('initialize', { sessionId: 'stdio exact/id', cwd: home })
    expect(init.result).toMatchObject({ sessionId: 'stdio exact/id', protocolVersion: 1, resumed: false })
    const transcriptPath = init.result.transcriptPath as string
    expect(transcriptPath.startsWith(home)).toBe(true)
    expect(transcriptPath.endsWith('.jsonl')).toBe(true)

    const answer = await client.request('session/prompt', { text: 'echo hi please' })
    expect(answer.result).toMatchObject({ turn: 1, reason: 'completed', text: 'all done', currency: 'USD' })
    // The first turn's usage is the whole session's so far.
    const { usage, sessionUsage } = answer.result as { usage: { inputTokens: number }; sessionUsage: unknown }
    expect(usage.inputTokens).toBeGreaterThan(0)
    expect(sessionUsage).toEqual(usage)

    // Every appended event arrived, in seq order, before the answer.
    const answerIndex = client.messages.indexOf(answer)
    const events = client.notifications('session/event')
    expect(events.every((message) => client.messages.indexOf(message) < answerIndex)).toBe(true)
    expect(events.map((message) => message.params.event.seq)).toEqual([...events.keys()])
    expect(events.map((message) => message.params.event.type)).toEqual([
      'session/settings',
      'turn/start',
      'user/message',
      'step/start',
      'request/config',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(events.every((message) => message.params.sessionId === 'stdio exact/id')).toBe(true)
    const outputs = client.notifications('session/output').map((message) => message.params.output)
    const kinds = outputs.map((output) => output.type).filter((type, i, all) => type !== all[i - 1])
    expect(kinds).toEqual([
      'turn-start',
      'reasoning-delta',
      'tool-start',
      'tool-end',
      'text-delta',
      'turn-end',
    ])
    expect(outputs.find((output) => output.type === 'tool-end')).toMatchObject({
      name: 'echo',
      content: 'echo: hi',
      isError: false,
    })

    const shutdown = await client.request('shutdown')
    expect(shutdown.result).toBeNull()
    await client.done
    expect(first.harness.agents.get('stdio exact/id')).toBeUndefined()
    expect(existsSync(transcriptPath)).toBe(true)
    await first.close()

    const second = await start({ home, script: [{ text: 'I remember' }] })
    const again = startStdioClient(second.harness)
    const resumed = await again.request('initialize', { sessionId: 'stdio exact/id' })
    expect(resumed.result).toEqual({ ...init.result, resumed: true })
    const next = await again.request('session/prompt', { text: 'and now?' })
    expect(next.result).toMatchObject({ turn: 2, reason: 'completed', text: 'I remember' })
    // After the resume the session's usage still counts the first run's turn.
    const totals = next.result as { usage: { inputTokens: number }; sessionUsage: { inputTokens: number } }
    expect(totals.sessionUsage.inputTokens).toBeGreaterThan(totals.usage.inputTokens)
    const texts = second.model.requests[0]!.messages.map((message) => message.content)
    expect(texts).toContain('echo hi please')
    expect(texts).toContain('echo: hi')
    // The resumed session continues the seq numbering.
    expect(again.notifications('session/event')[0]!.params.event.seq).toBe(13)
    again.end()
    await again.done
    expect(second.harness.agents.list()).toEqual([])
  })

  it('mints a fresh id without one, and uses the server default id when initialize names none', async () => {
    const { harness } = await start()
    const a = startStdioClient(harness)
    const b = startStdioClient(harness)
    const first = await a.request('initialize', {})
    const second = await b.request('initialize', {})
    expect(first.result.sessionId).toMatch(/^stdio-session-[0-9a-f-]{36}$/)
    expect(second.result.sessionId).not.toBe(first.result.sessionId)
    const c = startStdioClient(harness, { sessionId: 'from-flag' })
    expect((await c.request('initialize')).result.sessionId).toBe('from-flag')
    for (const client of [a, b, c]) {
      await client.request('shutdown')
      await client.done
    }
  })

  it('cancels a running turn, rejects a second prompt meanwhile, and answers the turn as aborted', async () => {
    const { harness, model } = await start({
      script: [{ text: 'a very slow answer', delayMs: 10_000 }, { text: 'fast' }],
    })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'cancel-me' })
    const idle = await client.request('session/cancel')
    expect(idle.result).toEqual({ cancelled: false })

    const answer = client.request('session/prompt', { text: 'take your time' })
    // Cancel only once the model holds the request, so the slow step is the one consumed.
    await vi.waitFor(() => expect(model.requests).toHaveLength(1))
    const busy = await client.request('session/prompt', { text: 'me too' })
    expect(busy.error).toMatchObject({ code: -32000, data: { code: 'STDIO_TURN_RUNNING' } })

    const cancel = await client.request('session/cancel', {})
    expect(cancel.result).toEqual({ cancelled: true })
    expect((await answer).result).toMatchObject({ turn: 1, reason: 'aborted' })

    // The session stays usable: the next prompt runs turn 2.
    expect((await client.request('session/prompt', { text: 'now quickly' })).result).toMatchObject({
      turn: 2,
      reason: 'completed',
      text: 'fast',
    })
    await client.request('shutdown')
    await client.done
  })

  it('shutdown during a turn answers the turn (aborted) before the shutdown itself', async () => {
    const { harness, model } = await start({ script: [{ text: 'never finished', delayMs: 10_000 }] })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'shut-mid-turn' })
    const answer = client.request('session/prompt', { text: 'go' })
    await vi.waitFor(() => expect(model.requests).toHaveLength(1))
    const shutdown = await client.request('shutdown')
    await client.done
    const prompt = await answer
    expect(prompt.result.reason).toBe('aborted')
    expect(client.messages.indexOf(prompt)).toBeLessThan(client.messages.indexOf(shutdown))
    const stored = await harness.sessions.exists('shut-mid-turn')
    expect(stored).toBe(true)
  })

  it('answers every JSON-RPC error with its code and never writes anything but JSON-RPC', async () => {
    const { harness } = await start()
    const client = startStdioClient(harness)
    const next = async (line: string) => {
      const since = client.messages.length
      client.sendLine(line)
      return client.waitFor(() => true, since)
    }

    expect((await next('{not json')).error?.code).toBe(-32700)
    expect((await next('{not json')).id).toBeNull()
    expect(await next('[]')).toMatchObject({ id: null, error: { code: -32600 } })
    expect(await next('{"jsonrpc":"1.0","id":"raw-1","method":"initialize"}')).toMatchObject({
      id: 'raw-1',
      error: { code: -32600 },
    })
    expect(await next('{"jsonrpc":"2.0","id":"raw-2"}')).toMatchObject({
      id: 'raw-2',
      error: { code: -32600 },
    })
    expect((await client.request('no/such/method')).error?.code).toBe(-32601)

    const notInitialized = await client.request('session/prompt', { text: 'hi' })
    expect(notInitialized.error).toMatchObject({ code: -32000, data: { code: 'STDIO_NOT_INITIALIZED' } })
    expect((await client.request('initialize', { sessionId: '' })).error?.code).toBe(-32602)
    expect((await client.request('initialize', { cwd: '/definitely/not/here' })).error).toMatchObject({
      code: -32000,
      data: { code: 'STDIO_BAD_CWD' },
    })
    // A live id held elsewhere is a DshError from the agent registry.
    await harness.agents.create({ sessionId: 'taken' })
    expect((await client.request('initialize', { sessionId: 'taken' })).error).toMatchObject({
      code: -32000,
      data: { code: 'AGENT_ALREADY_LIVE' },
    })

    await client.request('initialize', { sessionId: 'errors' })
    expect((await client.request('initialize', {})).error?.data?.code).toBe('STDIO_ALREADY_INITIALIZED')
    const badParams = await client.request('session/prompt', { text: 5 })
    expect(badParams.error).toMatchObject({ code: -32602 })
    expect(badParams.error?.data.issues[0].path).toEqual(['text'])

    // Notifications get no answer, not even an error.
    const since = client.messages.length
    client.notify('no/such/notification')
    client.notify('session/prompt', { text: 7 })
    await client.request('session/cancel')
    expect(client.messages.slice(since)).toHaveLength(1)

    await client.request('shutdown')
    await client.done
    for (const message of client.messages) {
      expect(message.jsonrpc).toBe('2.0')
      const isResponse = 'result' in message || 'error' in message
      expect(isResponse || typeof message.method === 'string').toBe(true)
    }
  })

  it('finishes the running turn when the input ends, answers it, then disposes the agent', async () => {
    const { harness, model } = await start({
      script: [{ text: 'one two three four five six', delayMs: 300 }],
    })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'eof' })
    const answer = client.request('session/prompt', { text: 'hello' })
    // The turn runs (the model was asked) when the input ends: it is not cut short.
    await expect.poll(() => model.requests.length, { timeout: 15_000 }).toBe(1)
    client.end()
    await client.done
    expect((await answer).result).toMatchObject({
      turn: 1,
      reason: 'completed',
      text: 'one two three four five six',
    })
    expect(harness.agents.get('eof')).toBeUndefined()
    const reloaded = await harness.agents.resume({ resumeSessionId: 'eof' })
    expect(reloaded.session.events.at(-1)?.data).toEqual({ turn: 1, reason: 'completed' })
  })

  it('a session/cancel sent before the input ends still cancels the turn', async () => {
    const { harness, model } = await start({
      script: [{ text: 'one two three four five six', delayMs: 1000 }],
    })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'eof-cancel' })
    const answer = client.request('session/prompt', { text: 'hello' })
    await expect.poll(() => model.requests.length, { timeout: 15_000 }).toBe(1)
    client.notify('session/cancel')
    client.end()
    await client.done
    expect((await answer).result).toMatchObject({ turn: 1, reason: 'aborted' })
  })
})
