// `dsh acp` driven by the SDK's client over in-process streams, against the real
// composition (JSONL on a temp home) and the loopback model.

import { PROTOCOL_VERSION, type SessionUpdate } from '@agentclientprotocol/sdk'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ToolCallInfo } from '../../../src/agent/index.js'
import { echoToolPlugin } from '../../support/echo-tool.js'
import { startTestHarness, type TestHarness } from '../../support/harness.js'
import { pngImage } from '../../support/images.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const open: TestHarness[] = []
const clients: AcpTestClient[] = []
const tempHome = useTempDirs('dsh-acp-')
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
  while (open.length > 0) await open.pop()!.close()
})

async function start(options: Parameters<typeof startTestHarness>[0] = {}) {
  const test = await startTestHarness(options)
  open.push(test)
  await test.harness.ctx.plugin(echoToolPlugin).await()
  return test
}

async function connect(test: TestHarness, answer?: Parameters<typeof startAcpClient>[1]) {
  const client = await startAcpClient(test.harness, answer)
  clients.push(client)
  const init = await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
  return { client, init }
}

/**
 * Adjacent chunks of one kind merged, so streamed deltas compare as whole messages. The
 * advertised commands are left out: they are sent once per session (acp-compact.test.ts).
 */
function merged(updates: SessionUpdate[]): unknown[] {
  const out: { sessionUpdate: string; text?: string }[] = []
  for (const update of updates) {
    if (update.sessionUpdate === 'available_commands_update') continue
    const last = out.at(-1)
    if (
      (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'agent_thought_chunk') &&
      update.content.type === 'text'
    ) {
      if (last?.sessionUpdate === update.sessionUpdate) last.text += update.content.text
      else out.push({ sessionUpdate: update.sessionUpdate, text: update.content.text })
    } else if (update.sessionUpdate === 'user_message_chunk' && update.content.type === 'text') {
      out.push({ sessionUpdate: update.sessionUpdate, text: update.content.text })
    } else {
      out.push(update as never)
    }
  }
  return out
}

const toolTurn = [
  { reasoning: 'I should echo', toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] },
  { text: 'echoed it' },
]

/** A live turn moves the call `pending` → `in_progress` → `completed`; a replay has no `in_progress` (it cannot know a call ran). */
const expectedTurn = (turn: number, live = true) => [
  { sessionUpdate: 'agent_thought_chunk', text: 'I should echo' },
  {
    sessionUpdate: 'tool_call',
    toolCallId: `${turn}/call_1`,
    title: 'echo',
    kind: 'other',
    status: 'pending',
    rawInput: { text: 'hi' },
  },
  ...(live
    ? [{ sessionUpdate: 'tool_call_update', toolCallId: `${turn}/call_1`, status: 'in_progress' }]
    : []),
  {
    sessionUpdate: 'tool_call_update',
    toolCallId: `${turn}/call_1`,
    status: 'completed',
    content: [{ type: 'content', content: { type: 'text', text: 'echo: hi' } }],
  },
  { sessionUpdate: 'agent_message_chunk', text: 'echoed it' },
]

/** The usage update a live turn ends with (replays have none). */
const usageAfterTurn = expect.objectContaining({
  sessionUpdate: 'usage_update',
  used: expect.any(Number),
  size: 1_000_000,
  cost: { amount: expect.any(Number), currency: 'USD' },
})

describe('dsh acp', () => {
  it('initializes, creates a session whose id is the dsh session id, and streams a turn to end_turn', async () => {
    const test = await start({ script: toolTurn })
    const { client, init } = await connect(test)
    expect(init).toMatchObject({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true },
    })

    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    expect(sessionId).toMatch(/^acp-session-/)
    const agent = test.harness.agents.get(sessionId)!
    expect(agent.session.id).toBe(sessionId)
    expect(agent.session.header.cwd).toBe(test.home)

    const response = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'echo hi' }],
    })
    expect(response.stopReason).toBe('end_turn')
    expect(response._meta).toMatchObject({ dsh: { turn: 1, reason: 'completed', currency: 'USD' } })
    const { usage, sessionUsage } = (response._meta as { dsh: Record<string, { inputTokens: number }> }).dsh
    expect(usage!.inputTokens).toBeGreaterThan(0)
    expect(sessionUsage).toEqual(usage)
    expect(client.updates.every((notification) => notification.sessionId === sessionId)).toBe(true)
    expect(merged(client.updates.map((notification) => notification.update))).toEqual([
      ...expectedTurn(1),
      usageAfterTurn,
    ])
  })

  it('loads a stored session in a later run, replaying its history before answering', async () => {
    const home = tempHome()
    const first = await start({ home, script: toolTurn })
    const { client } = await connect(first)
    const { sessionId } = await client.agent.request('session/new', { cwd: home, mcpServers: [] })
    await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo hi' }] })
    await clients.pop()!.close()
    expect(first.harness.agents.get(sessionId)).toBeUndefined()
    await open.pop()!.close()

    const second = await start({ home, script: [{ text: 'still here' }] })
    const { client: again } = await connect(second)
    await expect(
      again.agent.request('session/load', { sessionId: 'no-such-session', cwd: home, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 })

    await again.agent.request('session/load', { sessionId, cwd: home, mcpServers: [] })
    // Everything was replayed before the answer arrived.
    expect(merged(again.updates.map((notification) => notification.update))).toEqual([
      { sessionUpdate: 'user_message_chunk', text: 'echo hi' },
      ...expectedTurn(1, false),
    ])
    expect(second.harness.agents.get(sessionId)?.session.id).toBe(sessionId)

    const replayed = again.updates.length
    const response = await again.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'are you there?' }],
    })
    expect(response).toMatchObject({ stopReason: 'end_turn', _meta: { dsh: { turn: 2 } } })
    expect(merged(again.updates.slice(replayed).map((notification) => notification.update))).toEqual([
      { sessionUpdate: 'agent_message_chunk', text: 'still here' },
      usageAfterTurn,
    ])
    const history = second.model.requests[0]!.messages.map((message) => message.content)
    expect(history).toContain('echo hi')
    expect(history).toContain('echo: hi')
  })

  it('session/cancel ends the running prompt with cancelled; a second prompt meanwhile is refused', async () => {
    const test = await start({ script: [{ text: 'slow', delayMs: 10_000 }, { text: 'quick' }] })
    const { client } = await connect(test)
    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    const prompt = client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    })
    await vi.waitFor(() => expect(test.model.requests).toHaveLength(1))
    await expect(
      client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] }),
    ).rejects.toMatchObject({ code: -32000, data: { code: 'ACP_TURN_RUNNING' } })

    await client.agent.notify('session/cancel', { sessionId })
    expect(await prompt).toMatchObject({ stopReason: 'cancelled', _meta: { dsh: { reason: 'aborted' } } })
    const next = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'now' }],
    })
    expect(next.stopReason).toBe('end_turn')
  })

  it('session/cancel right after session/prompt cancels it, before its turn started', async () => {
    const test = await start({ script: [{ text: 'first' }, { text: 'second' }] })
    const { client } = await connect(test)
    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    // A large image: the cancel is read while it is downscaled, before the turn starts.
    const data = (await pngImage(3000, 3000)).toString('base64')
    const prompt = client.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'go' },
        { type: 'image', data, mimeType: 'image/png' },
      ],
    })
    await client.agent.notify('session/cancel', { sessionId })
    expect(await prompt).toMatchObject({ stopReason: 'cancelled', _meta: { dsh: { reason: 'aborted' } } })
    expect(test.model.requests).toHaveLength(0)
  })

  it('asks the client for tool approval on ask decisions, and the listener goes with the connection', async () => {
    const test = await start({
      script: [
        { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
        { toolCalls: [{ name: 'echo', arguments: { text: 'two' } }] },
        { text: 'done' },
      ],
    })
    const policy = test.harness.ctx.plugin({
      name: 'ask-for-echo',
      apply(ctx: Context) {
        ctx.on('tools/pre-execute', (call, next) =>
          call.name === 'echo'
            ? Promise.resolve({ kind: 'ask' as const, reason: 'echo needs a nod' })
            : next(),
        )
      },
    })
    await policy.await()
    const answers = ['allow_once', 'reject_once']
    const { client } = await connect(test, () => ({
      outcome: { outcome: 'selected', optionId: answers.shift() ?? 'reject_once' },
    }))
    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    const response = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'echo twice' }],
    })
    expect(response.stopReason).toBe('end_turn')
    expect(client.permissionRequests).toHaveLength(2)
    expect(client.permissionRequests[0]).toMatchObject({
      sessionId,
      toolCall: { toolCallId: '1/call_1', status: 'pending', rawInput: { text: 'one' } },
    })
    expect(client.permissionRequests[0]!.options.map((option) => option.kind)).toContain('allow_once')
    // Announced `pending`; the approved call runs (`in_progress`) and completes; the rejected one never runs.
    const statuses = client.updates
      .map((notification) => notification.update)
      .filter((update) => update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update')
      .map((update) => `${update.toolCallId} ${update.status}`)
    expect(statuses).toEqual([
      '1/call_1 pending',
      '1/call_1 in_progress',
      '1/call_1 completed',
      '1/call_2 pending',
      '1/call_2 failed',
    ])
    const ends = client.updates
      .map((notification) => notification.update)
      .filter((update) => update.sessionUpdate === 'tool_call_update' && update.status !== 'in_progress')
    expect(JSON.stringify(ends[1])).toContain('Tool call denied')

    // While connected, the listener answers for this connection's sessions only.
    // Real agents: the hook bridges' PermissionRequest listeners read the agent's cwd and session.
    const other = await test.harness.agents.create({ sessionId: 'someone-else' })
    const call = (agent: ToolCallInfo['agent']) =>
      ({ agent, turn: 9, callId: 'c', name: 'echo', arguments: '{}' }) as ToolCallInfo
    const mine = test.harness.agents.get(sessionId)!
    answers.push('allow_once')
    expect(await test.harness.ctx.serial('tools/approve', call(mine), 'why')).toBe(true)
    expect(await test.harness.ctx.serial('tools/approve', call(other), 'why')).toBeUndefined()
    await clients.pop()!.close()
    expect(await test.harness.ctx.serial('tools/approve', call(mine), 'why')).toBeUndefined()
    await policy.dispose()
  })

  it('session/cancel while the client has not answered a permission request ends the prompt cancelled', async () => {
    const test = await start({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }] })
    const policy = test.harness.ctx.plugin({
      name: 'ask-always',
      apply(ctx: Context) {
        ctx.on('tools/pre-execute', () => Promise.resolve({ kind: 'ask' as const, reason: 'check' }))
      },
    })
    await policy.await()
    const { client } = await connect(test, () => new Promise(() => {}))
    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    const prompt = client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    })
    await vi.waitFor(() => expect(client.permissionRequests).toHaveLength(1))
    await client.agent.notify('session/cancel', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    const result = test.harness.agents
      .get(sessionId)!
      .session.events.find((event) => event.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: true })
    await policy.dispose()
  })

  it('maps max-steps to max_turn_requests, a failed turn to a JSON-RPC error, and unknown sessions to -32002', async () => {
    const test = await start({
      config: { agent: { maxStepsPerTurn: 1 } },
      script: [
        { toolCalls: [{ name: 'echo', arguments: { text: 'loop' } }] },
        { status: 400, message: 'bad request' },
      ],
    })
    const { client } = await connect(test)
    const { sessionId } = await client.agent.request('session/new', { cwd: test.home, mcpServers: [] })
    const capped = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'loop' }],
    })
    expect(capped.stopReason).toBe('max_turn_requests')

    await expect(
      client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fail' }] }),
    ).rejects.toMatchObject({ code: -32000, data: { code: 'ACP_TURN_FAILED', reason: 'error', turn: 2 } })

    await expect(
      client.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] }),
    ).rejects.toMatchObject({ code: -32002 })
    await expect(
      client.agent.request('session/new', { cwd: 'relative/path', mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32000, data: { code: 'ACP_BAD_CWD' } })
  })
})
