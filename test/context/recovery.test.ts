// Recovery and failure of compaction against the strict stand-in: the server's
// context-length 400 brings one compaction and one retry (never a loop), an old session
// that already overflowed continues on resume, and a failed summary call leaves the session
// as it was and resumable.

import { describe, expect, it } from 'vitest'
import { promptText } from '../../src/llm/index.js'
import type { ContextCompactedData, SessionEvent } from '../../src/session/index.js'
import { isSummaryRequest, workCommand, workScript } from '../support/compaction-script.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-recovery-')

const compactions = (events: readonly SessionEvent[]) =>
  events
    .filter((event) => event.type === 'context/compacted')
    .map((event) => event.data as ContextCompactedData)

describe('context recovery', () => {
  it("compacts once and retries once when the server's window is smaller than dsh thinks", async () => {
    const work = workScript({ calls: 6, lines: 260 })
    // dsh believes in 40k tokens; the server refuses anything over 12k.
    const test = await start({
      script: work.script,
      config: { model: { contextWindow: 40_000, maxTokens: 4_000, maxRetries: 0 } },
      strict: { contextWindow: 12_000 },
    })
    const agent = await test.harness.agents.create({ sessionId: 'smaller-window' })
    const result = await agent.prompt('work overflow')
    expect(result).toMatchObject({ reason: 'completed', text: 'finished: work overflow' })
    const overflow = compactions(agent.session.events).filter((data) => data.reason === 'overflow')
    expect(overflow.length).toBeGreaterThan(0)
    expect(overflow.every((data) => data.summary !== undefined)).toBe(true)
    // The server named its window: one refusal, then every request is sized to 12k.
    const refused = test.model.requests.filter(
      (request) => Math.ceil(promptText(request).length / 4) + (request.max_tokens ?? 0) > 12_000,
    )
    expect(refused).toHaveLength(1)
  })

  it('sizes max_tokens to the window a context-length error names, without compacting a lone message', async () => {
    const test = await start({
      script: [{ text: 'fits after all' }],
      config: { model: { contextWindow: 40_000, maxRetries: 0 } },
      strict: { contextWindow: 12_000 },
    })
    const agent = await test.harness.agents.create({ sessionId: 'refit' })
    expect(await agent.prompt('hello')).toMatchObject({ reason: 'completed', text: 'fits after all' })
    expect(test.model.requests.map((request) => request.max_tokens! <= 12_000)).toEqual([false, true])
    expect(compactions(agent.session.events)).toHaveLength(0)
  })

  it('ends the turn with the error after one compaction and one retry when the retry overflows too', async () => {
    const overflowAlways = { fault: 'overflow' as const }
    const script = [
      { toolCalls: [{ name: 'bash', arguments: { command: workCommand(1, 40) } }], reasoning: 'look' },
      { text: 'first done' },
      overflowAlways,
      { text: 'the summary of the first turn' },
      overflowAlways,
      { text: 'never sent' },
    ]
    const test = await start({ script, config: { model: { maxRetries: 0 } } })
    const agent = await test.harness.agents.create({ sessionId: 'always-overflows' })
    expect((await agent.prompt('first')).reason).toBe('completed')
    const result = await agent.prompt('second')
    expect(result.reason).toBe('error')
    expect(result.error).toContain('context too long')
    expect(result.error).not.toContain('\n')
    // The overflowing request, the summary call, the retry: three requests, no loop.
    expect(test.model.requests).toHaveLength(5)
    expect(test.model.remaining).toBe(1)
    expect(compactions(agent.session.events)).toHaveLength(1)
    expect(agent.session.events.at(-1)?.type).toBe('turn/end')
  })

  it('continues on resume a session that overflowed before compaction existed', async () => {
    const home = tempHome()
    const work = workScript({ calls: 12, lines: 260 })
    // As dsh did before: no compaction, so the turn dies of the server's context-length 400.
    const old = await start({
      home,
      script: work.script,
      config: { model: { maxRetries: 0 }, compaction: { auto: false } },
      strict: { contextWindow: 16_000 },
    })
    const dead = await old.harness.agents.create({ sessionId: 'overflowed', meta: { cwd: home } })
    const died = await dead.prompt('work old')
    expect(died.reason).toBe('error')
    expect(died.error).toContain('context too long')
    expect(compactions(dead.session.events)).toHaveLength(0)
    await old.close()

    const test = await start({
      home,
      script: work.script,
      config: { model: { contextWindow: 16_000, maxRetries: 0 } },
      strict: { contextWindow: 16_000 },
    })
    const agent = await test.harness.agents.resume({ resumeSessionId: 'overflowed' })
    expect(await agent.prompt('work old')).toMatchObject({ reason: 'completed', text: 'finished: work old' })
    expect(compactions(agent.session.events).length).toBeGreaterThan(0)
    // A fork of the overflowed session works too.
    const fork = await test.harness.agents.fork({
      sourceSessionId: 'overflowed',
      boundary: dead.session.length,
    })
    expect((await fork.prompt('work fork')).reason).toBe('completed')
  })

  it('leaves the session as it was when the summary call fails, and the next turn can retry', async () => {
    const work = workScript({ calls: 8, lines: 260 })
    let failSummaries = true
    const script = work.script.map((step) =>
      typeof step === 'function'
        ? (request: Parameters<typeof step>[0]) =>
            failSummaries && isSummaryRequest(request)
              ? { status: 500, message: 'summary broke' }
              : step(request)
        : step,
    )
    const test = await start({
      script,
      config: { model: { contextWindow: 16_000, maxRetries: 1 } },
      strict: { contextWindow: 16_000 },
    })
    const agent = await test.harness.agents.create({ sessionId: 'summary-fails' })
    const failed = await agent.prompt('work broken')
    expect(failed.reason).toBe('error')
    expect(failed.error).toMatch(/^compaction failed: model request failed after 2 attempts: server error/)
    expect(compactions(agent.session.events)).toHaveLength(0)
    expect(agent.session.events.at(-1)?.type).toBe('turn/end')
    failSummaries = false
    expect(await agent.prompt('work broken')).toMatchObject({ reason: 'completed' })
    expect(compactions(agent.session.events).length).toBeGreaterThan(0)
  })
})
