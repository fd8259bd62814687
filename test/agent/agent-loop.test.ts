// The agent loop through the real composition: JSONL persistence on a temp folder,
// the OpenAI-compatible adapter, and a loopback HTTP model playing a script.

import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { AgentHandle } from '../../src/agent/index.js'
import type { ScriptRequest } from '../../src/llm/index.js'
import { type TestHarness, useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-agent-')

/** A plugin with two tools: `echo` answers its text; `wait` blocks until the turn is cancelled. */
function testTools(started: string[] = []) {
  return {
    name: 'test-tools',
    apply(ctx: Context) {
      ctx.get('tools')!.register({
        name: 'echo',
        description: 'Echo text',
        parameters: z.object({ text: z.string() }),
        async execute(args, execution) {
          started.push(execution.callId)
          return { content: `echo: ${args.text} (agent ${execution.agent?.id})` }
        },
      })
      ctx.get('tools')!.register({
        name: 'wait',
        description: 'Wait until cancelled',
        parameters: z.object({}),
        execute: (_args, execution) =>
          new Promise((resolve) => {
            started.push(execution.callId)
            execution.signal.addEventListener('abort', () => resolve({ content: 'stopped', isError: true }))
          }),
      })
    },
  }
}

const lastUserText = (request: ScriptRequest) =>
  [...request.messages].reverse().find((message) => message.role === 'tool')?.content ?? ''

describe('agent loop', () => {
  it('runs two tool calls in one step, persists the turn, and a resumed agent continues the conversation', async () => {
    const home = tempHome()
    const first = await start({
      home,
      script: [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'one' } },
            { name: 'echo', arguments: { text: 'two' } },
          ],
        },
        (request) => ({ text: `done after ${lastUserText(request)}` }),
      ],
    })
    const fiber = first.harness.ctx.plugin(testTools())
    await fiber.await()
    const agent = await first.harness.agents.create({ sessionId: 'loop-1', meta: { cwd: first.home } })
    const result = await agent.prompt('please echo twice')
    expect(result.reason).toBe('completed')
    expect(result.text).toContain('done after echo: two (agent loop-1)')

    const types = agent.session.events.map((event) => event.type)
    expect(types).toEqual([
      // What the turn runs with (model, effort, mode), for a resume or fork to restore.
      'session/settings',
      'turn/start',
      'user/message',
      'step/start',
      'request/config',
      'assistant/message',
      'tool/call',
      'tool/call',
      'tool/result',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const results = agent.session.events.filter((event) => event.type === 'tool/result')
    expect(results.map((event) => (event.data as { content: string }).content)).toEqual([
      'echo: one (agent loop-1)',
      'echo: two (agent loop-1)',
    ])
    // The second request carries both calls and both results, in model order.
    const second = first.model.requests[1]!
    const toolMessages = second.messages.filter((message) => message.role === 'tool')
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['call_1', 'call_2'])
    await first.close()

    const resumed = await start({ home, script: [{ text: 'I remember' }] })
    const again = await resumed.harness.agents.resume({ resumeSessionId: 'loop-1' })
    expect(again.id).toBe('loop-1')
    expect(again.session.length).toBe(15)
    const next = await again.prompt('what did I ask?')
    expect(next.turn).toBe(2)
    const request = resumed.model.requests[0]!
    const texts = request.messages.map((message) =>
      typeof message.content === 'string' ? message.content : '',
    )
    expect(texts).toContain('please echo twice')
    expect(texts).toContain('echo: one (agent loop-1)')
    expect(texts.at(-1)).toBe('what did I ask?')
    const seqs = again.session.events.map((event) => event.seq)
    expect(seqs).toEqual([...seqs.keys()])
  })

  it('refuses a duplicate live id, rolls back a failed setup, and refuses both ids at once', async () => {
    const { harness } = await start({})
    await harness.agents.create({ sessionId: 'dup' })
    await expect(harness.agents.create({ sessionId: 'dup' })).rejects.toMatchObject({
      code: 'AGENT_ALREADY_LIVE',
    })

    const created: string[] = []
    harness.ctx.on('agent/created', (agent) => {
      created.push(agent.id)
    })
    const failing = harness.ctx.plugin({
      name: 'failing-setup',
      apply(ctx: Context) {
        ctx.on('agent/setup', (agent) => {
          if (agent.id === 'doomed') throw new Error('setup failed')
        })
      },
    })
    await failing.await()
    await expect(harness.agents.create({ sessionId: 'doomed' })).rejects.toThrow('setup failed')
    expect(harness.agents.get('doomed')).toBeUndefined()
    expect(harness.sessions.get('doomed')).toBeUndefined()
    expect(created).not.toContain('doomed')
    expect(await harness.sessions.exists('doomed')).toBe(false)
    await failing.dispose()
    const reused = await harness.agents.create({ sessionId: 'doomed' })
    expect(reused.id).toBe('doomed')
    expect(created).toContain('doomed')

    await expect(
      harness.agents.create({ sessionId: 'x', resumeSessionId: 'y' } as never),
    ).rejects.toMatchObject({ code: 'AGENT_BAD_OPTIONS' })
  })

  it('pairs agent/created with agent/disposed and frees the id after disposal', async () => {
    const { harness } = await start({})
    const seen: string[] = []
    harness.ctx.on('agent/created', (agent) => {
      seen.push(`created ${agent.id}`)
    })
    harness.ctx.on('agent/disposed', (agent) => {
      seen.push(`disposed ${agent.id}`)
    })
    const first = await harness.agents.create({ sessionId: 'pair' })
    // Disposal is under way: the id is still taken until it has finished.
    const disposing = harness.agents.dispose('pair')
    await expect(harness.agents.create({ sessionId: 'pair' })).rejects.toMatchObject({
      code: 'AGENT_ALREADY_LIVE',
    })
    await disposing
    expect(harness.agents.get('pair')).toBeUndefined()
    const again = await harness.agents.create({ sessionId: 'pair' })
    expect(again).not.toBe(first)
    await harness.agents.dispose('pair')
    expect(seen).toEqual(['created pair', 'disposed pair', 'created pair', 'disposed pair'])
  })

  it('resumes a disposed session under the same id once disposal has finished', async () => {
    const test = await start({ script: [{ text: 'one' }, { text: 'two' }] })
    const agent = await test.harness.agents.create({ sessionId: 'again' })
    await agent.prompt('first')
    await test.harness.agents.dispose('again')
    const resumed = await test.harness.agents.resume({ resumeSessionId: 'again' })
    expect((await resumed.prompt('second')).turn).toBe(2)
  })

  it('cancels mid-stream: the turn ends aborted, keeps what was shown, and the log loads without repair', async () => {
    const test = await start({ script: [{ text: 'a long answer that streams slowly', delayMs: 40 }] })
    const agent = await test.harness.agents.create({ sessionId: 'cancel-stream' })
    const shown: string[] = []
    agent.onOutput((output) => {
      if (output.type === 'text-delta') {
        shown.push(output.text)
        agent.cancel()
      }
    })
    const result = await agent.prompt('talk')
    expect(result.reason).toBe('aborted')
    expect(result.text).toBe(shown.join(''))
    await expectCleanReload(test, 'cancel-stream')
  })

  it('cancels mid-tool: the tool is stopped, the turn ends aborted, the log loads without repair', async () => {
    const started: string[] = []
    const test = await start({
      script: [
        {
          toolCalls: [
            { name: 'wait', arguments: {} },
            { name: 'echo', arguments: { text: 'never' } },
          ],
        },
      ],
    })
    await test.harness.ctx.plugin(testTools(started)).await()
    const agent = await test.harness.agents.create({ sessionId: 'cancel-tool' })
    const controller = new AbortController()
    agent.onOutput((output) => {
      if (output.type === 'tool-start' && output.name === 'wait') setTimeout(() => controller.abort(), 20)
    })
    const result = await agent.prompt('wait', { signal: controller.signal })
    expect(result.reason).toBe('aborted')
    expect(started).toEqual(['call_1'])
    const results = agent.session.events.filter((event) => event.type === 'tool/result')
    expect(results).toHaveLength(2)
    await expectCleanReload(test, 'cancel-tool')
  })

  it('retries 429 and 500 and reports a stream cut after output as a turn error', async () => {
    const test = await start({
      script: [
        { status: 429, retryAfter: 0 },
        { status: 500 },
        { text: 'finally' },
        { text: 'partial answer that is cut', cutAfterChunks: 3 },
      ],
    })
    const agent = await test.harness.agents.create({ sessionId: 'retry' })
    const ok = await agent.prompt('hello')
    expect(ok).toMatchObject({ reason: 'completed', text: 'finally' })
    expect(test.model.requests).toHaveLength(3)
    const cut = await agent.prompt('again')
    expect(cut.reason).toBe('error')
    expect(cut.error).toBeTruthy()
    await expectCleanReload(test, 'retry')
  })

  it('lets policies deny a call, add feedback, force a continuation, and caps steps', async () => {
    const test = await start({
      script: [
        { toolCalls: [{ name: 'echo', arguments: { text: 'rm -rf /' } }] },
        { toolCalls: [{ name: 'echo', arguments: { text: 'ok' } }] },
        { text: 'first stop' },
        { text: 'second stop' },
      ],
    })
    await test.harness.ctx.plugin(testTools()).await()
    await test.harness.ctx
      .plugin({
        name: 'policy',
        apply(ctx: Context) {
          ctx.on('tools/pre-execute', (call, next) =>
            String(call.arguments).includes('rm -rf')
              ? Promise.resolve({ kind: 'deny', reason: 'no deleting' })
              : next(),
          )
          ctx.on('tools/post-execute', (state) => {
            state.feedback.push('reviewed')
          })
          ctx.on('agent/turn-stopping', (state) => {
            if (!state.continued) state.continueWith = 'please double-check'
          })
        },
      })
      .await()
    const agent = await test.harness.agents.create({ sessionId: 'policy' })
    const result = await agent.prompt('go')
    expect(result).toMatchObject({ reason: 'completed', text: 'second stop' })
    const second = test.model.requests[1]!
    const denied = second.messages.find((message) => message.role === 'tool')
    expect(denied?.content).toContain('Tool call denied: no deleting')
    expect(denied?.content).toContain('reviewed')
    const fourth = test.model.requests[3]!
    expect(fourth.messages.at(-1)).toMatchObject({ role: 'user', content: 'please double-check' })
  })

  it('ends a turn with max-steps', async () => {
    const test = await start({
      config: { agent: { maxStepsPerTurn: 2 } },
      script: [
        { toolCalls: [{ name: 'echo', arguments: { text: '1' } }] },
        { toolCalls: [{ name: 'echo', arguments: { text: '2' } }] },
      ],
    })
    await test.harness.ctx.plugin(testTools()).await()
    const agent = await test.harness.agents.create({ sessionId: 'steps' })
    expect((await agent.prompt('loop')).reason).toBe('max-steps')
  })

  it('forks a live or stored session into a new agent with lineage, its own location and the completed turns', async () => {
    const home = tempHome()
    const test = await start({
      home,
      script: [
        { text: 'noted 42' },
        (request) => ({ text: `fork sees ${request.messages.length} messages` }),
        { text: 'x' },
      ],
    })
    const source = await test.harness.agents.create({ sessionId: 'fork-source', meta: { cwd: home } })
    await source.prompt('remember 42')
    const persistence = test.harness.ctx.get('sessionPersistence')!
    const fromLive = await test.harness.agents.fork({
      sourceSessionId: 'fork-source',
      sessionId: 'fork-child',
    })
    expect(fromLive.session.header).toMatchObject({
      parentSession: 'fork-source',
      cwd: home,
      // The source's log and the marker that ends the seed.
      seedLength: source.session.length + 1,
    })
    expect(persistence.locate(fromLive.session.header)!.path).not.toBe(
      persistence.locate(source.session.header)!.path,
    )
    const result = await fromLive.prompt('what did I say?')
    // system + the source's user and assistant messages + the new prompt
    expect(result.text).toBe('fork sees 4 messages')
    expect(source.session.events.filter((event) => event.type === 'turn/start')).toHaveLength(1)

    await test.harness.agents.dispose('fork-source')
    const fromStored = await test.harness.agents.fork({ sourceSessionId: 'fork-source' })
    expect(fromStored.session.header.parentSession).toBe('fork-source')
    expect(test.harness.sessions.get('fork-source')).toBeUndefined()
    await expect(test.harness.agents.fork({ sourceSessionId: 'no-such-session' })).rejects.toMatchObject({
      code: 'PERSISTENCE_NOT_FOUND',
    })
  })

  it('removes a plugin tool when the plugin unloads', async () => {
    const { harness } = await start({})
    const fiber = harness.ctx.plugin(testTools())
    await fiber.await()
    expect(harness.ctx.get('tools')!.names()).toContain('echo')
    await fiber.dispose()
    expect(harness.ctx.get('tools')!.names()).not.toContain('echo')
    expect(harness.ctx.get('tools')!.names()).not.toContain('wait')
  })
})

async function expectCleanReload(test: TestHarness, id: string) {
  const live = test.harness.sessions.get(id)!
  const expected = live.events.map((event) => event.type)
  expect(expected.at(-1)).toBe('turn/end')
  await test.harness.agents.dispose(id)
  const reopened: AgentHandle = await test.harness.agents.resume({ resumeSessionId: id })
  // No synthetic closers were needed: the log was already whole.
  expect(reopened.session.events.map((event) => event.type)).toEqual(expected)
}
