// Conversations against the strict DeepSeek stand-in: several turns with tools in thinking
// mode, across resume and fork, with effort off and switched mid-session, and the
// byte-stable prefix that makes the server's prompt cache hit.

import { afterEach, describe, expect, it } from 'vitest'
import type { AgentHandle } from '../../src/agent/index.js'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { createHarness, type Harness } from '../../src/harness/index.js'
import {
  type LoopbackModel,
  PASSBACK_MESSAGE,
  promptText,
  type Script,
  type ScriptStep,
  type WireChatRequest,
} from '../../src/llm/index.js'
import type { SessionEventMap } from '../../src/session/index.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-strict-')
const startModel = useLoopbackModels()
const open: (() => Promise<void>)[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!()
})

async function strictModel(script: Script): Promise<LoopbackModel> {
  const model = await startModel(script, { strict: true, apiKey: 'k' })
  return model
}

/** A harness on `home` talking to `model`, with an empty config apart from the home. */
async function harnessOn(model: LoopbackModel, home: string, config: Record<string, unknown> = {}) {
  const file = validateConfig('test', { dshHome: home, model: { maxRetries: 0 }, ...config })
  const harness = await createHarness({
    config: resolveConfig(file, {}),
    model: { baseUrl: model.baseUrl, apiKey: 'k' },
  })
  let disposed = false
  const dispose = async () => {
    if (disposed) return
    disposed = true
    await harness.dispose()
  }
  open.push(dispose)
  return { harness, dispose }
}

// Real reasoning often begins or ends in whitespace; DeepSeek refuses it altered (trimmed).
const firstThought = (n: number) => `\nTurn ${n}: I should look at the folder first.\n`
const secondThought = (n: number) => `  Turn ${n}: the command printed what I expected.\n\n`

/** One turn: a bash call with reasoning, then an answer with reasoning. */
function bashTurn(n: number): ScriptStep[] {
  return [
    {
      reasoning: firstThought(n),
      text: `Looking (turn ${n}).`,
      toolCalls: [{ name: 'bash', arguments: { command: `echo turn-${n}` } }],
    },
    { reasoning: secondThought(n), text: `Turn ${n} done.` },
  ]
}

async function start(harness: Harness, cwd: string): Promise<AgentHandle> {
  return harness.agents.create({ sessionId: `strict-${Math.random().toString(36).slice(2)}`, meta: { cwd } })
}

function reasoningSent(request: WireChatRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'assistant' && message.reasoning_content !== undefined
      ? [message.reasoning_content]
      : [],
  )
}

describe('strict DeepSeek mode', () => {
  it('holds a three-turn conversation with a bash call per turn, sending every earlier reasoning back', async () => {
    const model = await strictModel([...bashTurn(1), ...bashTurn(2), ...bashTurn(3)])
    const { harness } = await harnessOn(model, tempDir())
    const agent = await start(harness, tempDir())
    for (const n of [1, 2, 3]) {
      const result = await agent.prompt(`task ${n}`)
      expect(result, `turn ${n}`).toMatchObject({ reason: 'completed', text: `Turn ${n} done.` })
    }
    expect(model.requests).toHaveLength(6)
    const last = model.requests.at(-1)!
    expect(last.model).toBe('deepseek-flash')
    expect(last.thinking).toEqual({ type: 'enabled' })
    expect(last.reasoning_effort).toBe('high')
    expect(reasoningSent(last)).toEqual([
      firstThought(1),
      secondThought(1),
      firstThought(2),
      secondThought(2),
      firstThought(3),
    ])
  })

  it('refuses a request whose tool-calling reasoning is missing or altered, with DeepSeek’s message', async () => {
    const model = await strictModel([...bashTurn(1), { text: 'never' }])
    const first = await fetch(`${model.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { Authorization: 'Bearer k' },
      body: JSON.stringify({
        model: 'deepseek-flash',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      }),
    })
    const streamed = await first.text()
    expect(streamed).toContain('call_1')
    const history = [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ]
    // Missing, a changed character, and the right text trimmed: each is altered reasoning.
    for (const reasoning of [undefined, firstThought(1).replace('.', '!'), firstThought(1).trim()]) {
      const assistant = {
        ...history[1],
        ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
      }
      const response = await fetch(`${model.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { Authorization: 'Bearer k' },
        body: JSON.stringify({ model: 'deepseek-flash', messages: [history[0], assistant, history[2]] }),
      })
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(PASSBACK_MESSAGE)
    }
  })

  it('also requires the reasoning of the answer that closes a tool-calling exchange, not of a tool-free one', async () => {
    const model = await strictModel([
      { reasoning: 'Plain question.', text: 'Plain answer.' },
      ...bashTurn(1),
      { text: 'never' },
    ])
    const send = async (messages: unknown[], stream = false) =>
      fetch(`${model.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { Authorization: 'Bearer k' },
        body: JSON.stringify({ model: 'deepseek-flash', messages, stream }),
      })
    const plain = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'Plain answer.' },
    ]
    expect((await send([plain[0]], true)).status).toBe(200)
    // A tool-free exchange may drop its reasoning: the API ignores it there.
    expect((await send([...plain, { role: 'user', content: 'x' }], true)).status).toBe(200)
    const call = {
      role: 'assistant',
      content: 'Looking (turn 1).',
      reasoning_content: firstThought(1),
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
    }
    const tool = { role: 'tool', tool_call_id: 'call_1', content: 'ok' }
    expect((await send([...plain, { role: 'user', content: 'x' }, call, tool], true)).status).toBe(200)
    const answer = { role: 'assistant', content: 'Turn 1 done.' }
    for (const reasoning of [
      undefined,
      'Turn 1: the command printed something else.',
      secondThought(1).trim(),
    ]) {
      const closing = reasoning === undefined ? answer : { ...answer, reasoning_content: reasoning }
      const response = await send([
        ...plain,
        { role: 'user', content: 'x' },
        call,
        tool,
        closing,
        { role: 'user', content: 'y' },
      ])
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(PASSBACK_MESSAGE)
    }
  })

  it('continues after resume and after a fork of the first two turns', async () => {
    const model = await strictModel([...bashTurn(1), ...bashTurn(2), ...bashTurn(3), ...bashTurn(4)])
    const home = tempDir()
    const cwd = tempDir()
    const first = await harnessOn(model, home)
    const agent = await start(first.harness, cwd)
    const id = agent.id
    for (const n of [1, 2]) expect((await agent.prompt(`task ${n}`)).reason).toBe('completed')
    await first.dispose()

    const second = await harnessOn(model, home)
    const resumed = await second.harness.agents.resume({ resumeSessionId: id })
    expect((await resumed.prompt('task 3')).reason).toBe('completed')
    expect(reasoningSent(model.requests.at(-1)!)).toHaveLength(5)

    const fork = await second.harness.agents.fork({ sourceSessionId: id, boundary: forkBoundary(resumed, 2) })
    expect((await fork.prompt('task 3 again')).reason).toBe('completed')
    expect(reasoningSent(model.requests.at(-1)!)).toEqual([
      firstThought(1),
      secondThought(1),
      firstThought(2),
      secondThought(2),
      firstThought(4),
    ])
  })

  it('with effort off sends thinking disabled and no reasoning anywhere', async () => {
    const model = await strictModel([...bashTurn(1), ...bashTurn(2)])
    const { harness } = await harnessOn(model, tempDir(), { model: { maxRetries: 0, effort: 'off' } })
    const agent = await start(harness, tempDir())
    for (const n of [1, 2]) expect((await agent.prompt(`task ${n}`)).reason).toBe('completed')
    for (const request of model.requests) {
      expect(request.thinking).toEqual({ type: 'disabled' })
      expect('reasoning_effort' in request).toBe(false)
      expect(JSON.stringify(request.messages)).not.toContain('reasoning_content')
    }
    const config = agent.session.events.find((event) => event.type === 'request/config')!
    expect(config.data).toMatchObject({ model: 'deepseek-flash', effort: 'off' })
  })

  it('switching effort from off to high mid-session sends reasoning_content "" for the earlier messages', async () => {
    const model = await strictModel([...bashTurn(1), ...bashTurn(2)])
    const { harness } = await harnessOn(model, tempDir(), { model: { maxRetries: 0, effort: 'off' } })
    const agent = await start(harness, tempDir())
    expect((await agent.prompt('task 1')).reason).toBe('completed')
    agent.setModel({ effort: 'high' })
    expect((await agent.prompt('task 2')).reason).toBe('completed')
    expect(reasoningSent(model.requests.at(-1)!)).toEqual(['', '', firstThought(2)])
    const efforts = agent.session.events
      .filter((event) => event.type === 'request/config')
      .map((event) => (event.data as SessionEventMap['request/config']).effort)
    expect(efforts).toEqual(['off', 'high'])
  })

  it('keeps a byte-stable prefix over a 20-step turn, so cache hits reach the most prefix sharing allows', async () => {
    const steps: ScriptStep[] = []
    for (let i = 1; i <= 19; i++) {
      steps.push({
        reasoning: `Step ${i}: one more command.`,
        toolCalls: [{ name: 'bash', arguments: { command: `echo step-${i}` } }],
      })
    }
    steps.push({ reasoning: 'All done.', text: 'Twenty steps.' })
    const model = await strictModel(steps)
    const { harness } = await harnessOn(model, tempDir())
    const agent = await start(harness, tempDir())
    expect((await agent.prompt('run twenty steps')).reason).toBe('completed')
    const requests = model.requests
    expect(requests).toHaveLength(20)
    for (let i = 1; i < requests.length; i++) {
      const before = requests[i - 1]!
      const after = requests[i]!
      expect(after.messages.slice(0, before.messages.length), `request ${i + 1}`).toEqual(before.messages)
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools))
    }
    const usages = agent.session.events
      .filter((event) => event.type === 'assistant/message')
      .map((event) => (event.data as SessionEventMap['assistant/message']).usage!)
    expect(usages).toHaveLength(20)
    for (let i = 1; i < usages.length; i++) {
      const most = Math.floor(promptText(requests[i - 1]!).length / 4 / 64) * 64
      expect(usages[i]!.cachedTokens!, `request ${i + 1}`).toBeGreaterThanOrEqual(0.9 * most)
    }
  })

  it('refuses a retired model id with "Model Not Exist"', async () => {
    const model = await strictModel([{ text: 'never' }])
    const { harness } = await harnessOn(model, tempDir(), { model: { maxRetries: 0, name: 'deepseek-chat' } })
    const agent = await start(harness, tempDir())
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('error')
    expect(result.error).toContain('Model Not Exist')
  })
})

/** The event count at the end of turn `turn`: a fork boundary after it. */
function forkBoundary(agent: AgentHandle, turn: number): number {
  const index = agent.session.events.findIndex(
    (event) => event.type === 'turn/end' && (event.data as SessionEventMap['turn/end']).turn === turn,
  )
  return index + 1
}
