// The subagent tool through the real loop: a child agent with its own session id,
// lineage to the parent, the parent's cwd, and its answer returned as the tool result.

import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionEventMap } from '../../../src/session/index.js'
import type { LedgerStep } from '../../../src/usage/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { groupGone } from '../../support/processes.js'

const startTestHarness = useTestHarnesses()
type AssistantData = SessionEventMap['assistant/message']

describe('subagent tool', () => {
  it('runs a child with a new id, parent lineage and inherited cwd, and returns its answer', async () => {
    const test = await startTestHarness({
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'count', prompt: 'count to three' } }] },
        { text: 'one two three' },
        (request) => ({ text: `child said: ${request.messages.at(-1)?.content}` }),
      ],
    })
    const { harness } = test
    const lifecycle: string[] = []
    harness.ctx.on('subagent/start', (parent, child) => {
      lifecycle.push(`start ${parent.id} -> ${child.session.header.parentSession}`)
    })
    harness.ctx.on('subagent/stop', (_parent, child, result) => {
      lifecycle.push(`stop ${child.id.startsWith('parent-sub-')} ${result.reason}`)
    })
    const parent = await harness.agents.create({ sessionId: 'parent', meta: { cwd: test.home } })
    const result = await parent.prompt('delegate')
    expect(result.reason).toBe('completed')
    expect(result.text).toContain('one two three')
    expect(lifecycle).toEqual(['start parent -> parent', 'stop true completed'])

    const stored = await harness.sessions.listStored()
    const child = stored.find((summary) => summary.header.parentSession === 'parent')!
    expect(child.header).toMatchObject({ origin: 'subagent', delegationDepth: 1, cwd: test.home })
    expect(child.header.id).not.toBe('parent')
    // The child's request held only its own prompt, not the parent's conversation.
    const childRequest = test.model.requests[1]!
    expect(childRequest.messages.filter((message) => message.role === 'user').map((m) => m.content)).toEqual([
      'count to three',
    ])
    expect(harness.agents.list().map((agent) => agent.id)).toEqual(['parent'])
  })

  it('refuses delegation past the configured depth', async () => {
    const test = await startTestHarness({
      config: { subagents: { maxDepth: 0 } },
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'x', prompt: 'y' } }] },
        (request) => ({ text: String(request.messages.at(-1)?.content) }),
      ],
    })
    const parent = await test.harness.agents.create({ sessionId: 'top' })
    const result = await parent.prompt('delegate')
    expect(result.text).toContain('Delegation refused: depth 1 exceeds the maximum of 0')
  })

  it("seeds a forked child with the parent's completed turns", async () => {
    const test = await startTestHarness({
      script: [
        { text: 'noted: the secret is 42' },
        {
          toolCalls: [
            {
              name: 'subagent',
              arguments: { description: 'recall', prompt: 'what is the secret?', fork: true },
            },
          ],
        },
        (request) => ({
          text: request.messages.some((m) => m.content === 'remember 42') ? 'it is 42' : 'unknown',
        }),
        { text: 'the child knew' },
      ],
    })
    const parent = await test.harness.agents.create({ sessionId: 'forker' })
    await parent.prompt('remember 42')
    const result = await parent.prompt('ask a forked child')
    expect(result.reason).toBe('completed')
    const toolMessage = test.model.requests[3]!.messages.find((message) => message.role === 'tool')
    expect(toolMessage?.content).toContain('it is 42')
    const child = (await test.harness.sessions.listStored()).find((s) => s.header.parentSession === 'forker')!
    expect(child.header.seedLength).toBeGreaterThan(0)
  })

  it('sends the seed’s reasoning back from a forked child, so strict thinking mode accepts its first request', async () => {
    const test = await startTestHarness({
      script: [
        {
          reasoning: 'Seed: list first.',
          toolCalls: [{ name: 'bash', arguments: { command: 'echo seed' } }],
        },
        { reasoning: 'Seed: listed.', text: 'seeded' },
        {
          reasoning: 'Delegate it.',
          toolCalls: [
            { name: 'subagent', arguments: { description: 'recall', prompt: 'go on', fork: true } },
          ],
        },
        { reasoning: 'Child thinks.', text: 'child answer' },
        { text: 'parent done' },
      ],
    })
    const parent = await test.harness.agents.create({ sessionId: 'reasoning-forker' })
    expect((await parent.prompt('first')).reason).toBe('completed')
    const result = await parent.prompt('delegate with the history')
    expect(result).toMatchObject({ reason: 'completed', text: 'parent done' })
    const child = test.model.requests[3]!
    expect(child.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['first', 'go on'])
    expect(
      child.messages.flatMap((m) =>
        m.role === 'assistant' && m.reasoning_content !== undefined ? [m.reasoning_content] : [],
      ),
    ).toEqual(['Seed: list first.', 'Seed: listed.'])
  })

  it("a forked child's seed ends with the fork marker, so the parent's usage it copied is inherited, not counted again", async () => {
    const test = await startTestHarness({
      script: [
        { text: 'one' },
        { toolCalls: [{ name: 'subagent', arguments: { description: 'f', prompt: 'go on', fork: true } }] },
        { text: 'child answer' },
        { text: 'parent done' },
      ],
    })
    const parent = await test.harness.agents.create({ sessionId: 'usage-forker' })
    expect((await parent.prompt('first')).reason).toBe('completed')
    expect((await parent.prompt('delegate with the history')).reason).toBe('completed')
    const child = (await test.harness.sessions.listStored()).find(
      (summary) => summary.header.parentSession === 'usage-forker',
    )!
    const log = await test.harness.sessions.read(child.header.id)
    const seedLength = child.header.seedLength!
    expect(log.events[seedLength - 1]).toMatchObject({
      type: 'session/forked',
      data: { parentSession: 'usage-forker' },
    })
    // The requests each log recorded, before and after the seed (the strict model reports usage).
    const promptTokens = (events: readonly SessionEvent[]) =>
      events.reduce(
        (sum, event) =>
          sum + (event.type === 'assistant/message' ? (event.data as AssistantData).usage!.promptTokens : 0),
        0,
      )
    const ledgerTokens = (steps: readonly LedgerStep[] = []) => steps.reduce((sum, step) => sum + step[2], 0)
    const own = promptTokens(log.events.slice(seedLength))
    const copied = promptTokens(log.events.slice(0, seedLength))
    expect(own).toBeGreaterThan(0)
    // The seed before its marker is the parent's turn 1, as it was logged there.
    expect(copied).toBe(promptTokens(parent.session.events.slice(0, seedLength - 1)))
    expect(ledgerTokens(child.usage.steps)).toBe(own)
    expect(ledgerTokens(child.usage.inherited?.steps)).toBe(copied)
    // The child's request still held the seed's turn and then its own prompt.
    expect(test.model.requests[2]!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'first',
      'go on',
    ])
  })

  it("kills a sub-agent's background jobs, the whole process group, when the sub-agent is disposed", async () => {
    let started = ''
    const test = await startTestHarness({
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'bg', prompt: 'start a job' } }] },
        {
          toolCalls: [
            // The shell and its child `sleep` share the job's process group.
            { name: 'bash', arguments: { command: 'sleep 1102 & wait', run_in_background: true } },
          ],
        },
        (request) => {
          started = String(request.messages.at(-1)?.content)
          return { text: started }
        },
        { text: 'parent done' },
      ],
    })
    const parent = await test.harness.agents.create({ sessionId: 'bg-parent', meta: { cwd: test.home } })
    expect((await parent.prompt('delegate')).reason).toBe('completed')
    const [, jobId, pid] = /^started background job (\S+)\n\(pid (\d+);/.exec(started)!
    expect(test.harness.agents.list().map((agent) => agent.id)).toEqual(['bg-parent'])
    await groupGone(Number(pid))
    expect(test.harness.ctx.get('shell')!.job(jobId!)?.status).toBe('killed')
  })
})
