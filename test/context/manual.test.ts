// Manual compaction, the estimate against the server's count, the prompt cache after a
// compaction, and sub-agents compacting on their own — against the strict stand-in.

import { describe, expect, it } from 'vitest'
import { ESTIMATE_ERROR } from '../../src/context/index.js'
import type { ScriptOutcome, ScriptRequest } from '../../src/llm/index.js'
import type { ContextCompactedData, SessionEvent } from '../../src/session/index.js'
import {
  isSummaryRequest,
  SUMMARY_MESSAGE_MARK,
  turnPrompt,
  workScript,
} from '../support/compaction-script.js'
import { useTestHarnesses } from '../support/harness.js'

const start = useTestHarnesses()

const compactions = (events: readonly SessionEvent[]) =>
  events
    .filter((event) => event.type === 'context/compacted')
    .map((event) => event.data as ContextCompactedData)

describe('manual compaction', () => {
  it("summarises with the user's words, keeps the log whole, and the next requests share a cached prefix", async () => {
    const work = workScript({ calls: 3, lines: 40 })
    const test = await start({ script: work.script, config: { model: { maxRetries: 0 } } })
    const agent = await test.harness.agents.create({ sessionId: 'manual' })
    expect((await agent.prompt('work before')).reason).toBe('completed')
    const before = agent.session.length
    const outputs: string[] = []
    agent.onOutput((output) => {
      if (output.type === 'compaction') outputs.push(output.phase)
    })

    const result = await agent.compact({ instructions: 'focus on the tests' })
    expect(result.summarised).toBe(true)
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore)
    expect(outputs).toEqual(['start', 'end'])
    const summaryRequest = work.summaryRequests.at(-1)!
    expect(summaryRequest.messages.at(-1)!.content).toContain('focus on the tests')
    // The summary call sends the same system prompt, tools and messages as the turn's last request.
    const lastTurnRequest = test.model.requests.at(-2)!
    const summaryWire = test.model.requests.at(-1)!
    expect(summaryWire.tools).toEqual(lastTurnRequest.tools)
    expect(summaryWire.messages.slice(0, lastTurnRequest.messages.length - 1)).toEqual(
      lastTurnRequest.messages.slice(0, -1),
    )

    const [boundary] = compactions(agent.session.events)
    expect(boundary).toMatchObject({ trigger: 'manual', instructions: 'focus on the tests' })
    expect(boundary!.usage?.promptTokens).toBeGreaterThan(0)
    // Nothing earlier was rewritten.
    expect(agent.session.length).toBe(before + 1)

    expect((await agent.prompt('work after')).reason).toBe('completed')
    const after = test.model.requests.slice(-4)
    // The first request after the compaction starts with the summary, not the old turn.
    const first = after[0]!
    expect(JSON.stringify(first.messages[1])).toContain(SUMMARY_MESSAGE_MARK)
    // The old turn's outputs are gone; its prompt stays as the last user message before the summary.
    expect(JSON.stringify(first.messages)).not.toContain('line 00001 of the output')
    expect(first.messages.filter((message) => message.role === 'tool')).toHaveLength(0)
    // Each later request extends the one before it, and the stand-in's prefix cache hits.
    for (let i = 1; i < after.length; i++) {
      expect(after[i]!.messages.slice(0, after[i - 1]!.messages.length)).toEqual(after[i - 1]!.messages)
    }
    const usages = agent.session.events
      .filter((event) => event.type === 'assistant/message')
      .slice(-3)
      .map((event) => (event.data as { usage?: { cachedTokens?: number } }).usage?.cachedTokens ?? 0)
    expect(usages.slice(1).every((cached) => cached > 0)).toBe(true)
  })

  it('says there is nothing to compact in a new session, and writes nothing', async () => {
    const test = await start()
    const agent = await test.harness.agents.create({ sessionId: 'empty' })
    await expect(agent.compact()).rejects.toMatchObject({ code: 'CONTEXT_NOTHING_TO_COMPACT' })
    expect(agent.session.length).toBe(0)
  })

  it('estimates the next request within the stated error of the server count', async () => {
    const work = workScript({ calls: 4, lines: 120 })
    const test = await start({ script: work.script })
    const agent = await test.harness.agents.create({ sessionId: 'estimate' })
    await agent.prompt('work estimate — with ünïcödé and 中文 text')
    const usage = agent.contextUsage()!
    expect(usage.measured).toBe(true)
    const estimate = Object.values(usage.breakdown).reduce((sum, tokens) => sum + tokens, 0)
    expect(Math.abs(estimate - usage.tokens) / usage.tokens).toBeLessThanOrEqual(ESTIMATE_ERROR)
    expect(usage.window).toBe(1_000_000)
    expect(usage.breakdown.toolOutputs).toBeGreaterThan(usage.breakdown.messages)
    expect(usage.breakdown.tools).toBeGreaterThan(0)
  })
})

describe('sub-agents', () => {
  it("compact on their own, and the child's summary never reaches the parent", async () => {
    const work = workScript({ calls: 10, lines: 260 })
    const step = work.script[0] as (request: ScriptRequest) => ScriptOutcome
    const script = work.script.map(() => (request: ScriptRequest) => {
      if (turnPrompt(request) !== 'delegate' || isSummaryRequest(request)) return step(request)
      const answered = request.messages.some((message) => message.role === 'tool')
      return answered
        ? { text: 'parent done' }
        : {
            reasoning: 'delegate it',
            toolCalls: [{ name: 'subagent', arguments: { description: 'work', prompt: 'work child' } }],
          }
    })
    const test = await start({
      script,
      config: { model: { contextWindow: 16_000, maxRetries: 0 } },
      strict: { contextWindow: 16_000 },
    })
    const parent = await test.harness.agents.create({ sessionId: 'parent' })
    expect(await parent.prompt('delegate')).toMatchObject({ reason: 'completed', text: 'parent done' })
    expect(compactions(parent.session.events)).toHaveLength(0)
    const stored = await test.harness.sessions.listStored()
    const child = stored.find((summary) => summary.header.parentSession === 'parent')!
    const loaded = await test.harness.ctx.get('sessionPersistence')!.load(child.header.id)
    expect(compactions(loaded.events).length).toBeGreaterThan(0)
    const last = test.model.requests.at(-1)!
    expect(JSON.stringify(last.messages)).not.toContain(SUMMARY_MESSAGE_MARK)
  })
})
