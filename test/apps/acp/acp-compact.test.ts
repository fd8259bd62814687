// The ACP `compact` command: advertised with available_commands_update after session/new
// and session/load, run from a prompt's text (`/compact focus on the tests`), reported with
// session/update messages, and replayed as a boundary on load. Real composition, SDK client.

import { PROTOCOL_VERSION, type SessionUpdate } from '@agentclientprotocol/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import type { ScriptRequest } from '../../../src/llm/index.js'
import type { ContextCompactedData } from '../../../src/session/index.js'
import { isSummaryRequest, SUMMARY_REQUEST_MARK, turnPrompt } from '../../support/compaction-script.js'
import { startTestHarness, type TestHarness } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const open: TestHarness[] = []
const clients: AcpTestClient[] = []
const tempHome = useTempDirs('dsh-acp-compact-')
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
  while (open.length > 0) await open.pop()!.close()
})

const BOUNDARY_LINE = /context compacted: [\d.]+k? → [\d.]+k? tokens/

const answer = (request: ScriptRequest) =>
  isSummaryRequest(request)
    ? { reasoning: 'Summing up.', text: '1. Task: greet\n6. Next steps: none' }
    : { reasoning: 'Easy.', text: `answer to ${turnPrompt(request)}` }

async function connect(test: TestHarness) {
  const client = await startAcpClient(test.harness)
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
  return client
}

function updatesOf(client: AcpTestClient, kind: string): SessionUpdate[] {
  return client.updates.map((n) => n.update).filter((update) => update.sessionUpdate === kind)
}

/** The text of message and thought chunks, joined. */
function text(updates: SessionUpdate[]): string {
  return updates
    .map((update) =>
      (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'agent_thought_chunk') &&
      update.content.type === 'text'
        ? update.content.text
        : '',
    )
    .join('')
}

describe('the ACP compact command', () => {
  it('is advertised, runs with the rest of the input as instructions, and is replayed on load', async () => {
    const home = tempHome()
    const test = await startTestHarness({ home, script: Array.from({ length: 4 }, () => answer) })
    open.push(test)
    const client = await connect(test)
    const { sessionId } = await client.agent.request('session/new', { cwd: home, mcpServers: [] })
    await until(() => updatesOf(client, 'available_commands_update').length > 0, 5_000, 'the commands')
    const [advertised] = updatesOf(client, 'available_commands_update')
    expect(advertised).toMatchObject({
      availableCommands: [{ name: 'compact', input: { hint: expect.any(String) } }],
    })

    await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
    const before = client.updates.length
    const response = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/compact focus on the tests' }],
    })
    expect(response.stopReason).toBe('end_turn')
    expect(response._meta).toMatchObject({ dsh: { compaction: { summarised: true } } })
    const summary = test.model.requests.at(-1)!.messages.at(-1)!
    expect(summary.content).toContain(SUMMARY_REQUEST_MARK)
    expect(summary.content).toContain('focus on the tests')

    // The client heard the progress (thoughts) and the result (the answer), in that order.
    const after = client.updates.slice(before).map((n) => n.update)
    const thoughts = text(after.filter((update) => update.sessionUpdate === 'agent_thought_chunk'))
    expect(thoughts).toContain('(compacting context…)')
    expect(thoughts).toMatch(BOUNDARY_LINE)
    expect(text(after.filter((update) => update.sessionUpdate === 'agent_message_chunk'))).toMatch(
      new RegExp(`^${BOUNDARY_LINE.source}$`),
    )
    expect(after.some((update) => update.sessionUpdate === 'usage_update')).toBe(true)
    const agent = test.harness.agents.get(sessionId)!
    const boundary = agent.session.events.find((event) => event.type === 'context/compacted')
    expect(boundary?.data as ContextCompactedData).toMatchObject({
      trigger: 'manual',
      instructions: 'focus on the tests',
    })

    // A later connection loads it: the whole history, the boundary marked, the commands again.
    await clients.pop()!.close()
    const again = await connect(test)
    await again.agent.request('session/load', { sessionId, cwd: home, mcpServers: [] })
    const replayed = again.updates.map((n) => n.update)
    const hello = replayed.findIndex((update) => update.sessionUpdate === 'user_message_chunk')
    const mark = replayed.findIndex(
      (update) => update.sessionUpdate === 'agent_thought_chunk' && BOUNDARY_LINE.test(text([update])),
    )
    expect(hello).toBeGreaterThanOrEqual(0)
    expect(mark).toBeGreaterThan(hello)
    expect(updatesOf(again, 'available_commands_update')).toHaveLength(1)
  })

  it('answers a compaction with nothing to compact with an error, and session/cancel cancels one', async () => {
    const home = tempHome()
    const stalled = (request: ScriptRequest) =>
      isSummaryRequest(request) ? { stallMs: 30_000, text: 'too late' } : answer(request)
    const test = await startTestHarness({ home, script: [stalled, stalled] })
    open.push(test)
    const client = await connect(test)
    const { sessionId } = await client.agent.request('session/new', { cwd: home, mcpServers: [] })
    await expect(
      client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/compact' }] }),
    ).rejects.toMatchObject({ data: { code: 'CONTEXT_NOTHING_TO_COMPACT' } })

    await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
    const compacting = client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/compact' }],
    })
    await until(() => text(updatesOf(client, 'agent_thought_chunk')).includes('(compacting context…)'))
    await client.agent.notify('session/cancel', { sessionId })
    expect((await compacting).stopReason).toBe('cancelled')
    const agent = test.harness.agents.get(sessionId)!
    expect(agent.session.events.some((event) => event.type === 'context/compacted')).toBe(false)
  })
})
