// Compaction through the real composition: the strict DeepSeek stand-in with a small
// context window (it refuses any request over it, and checks reasoning passback), JSONL
// persistence, and real bash calls whose outputs add up to three times the window.

import { describe, expect, it } from 'vitest'
import { promptText, type ReceivedRequest } from '../../src/llm/index.js'
import type { ContextCompactedData, SessionEvent } from '../../src/session/index.js'
import { SUMMARY_MESSAGE_MARK, workScript } from '../support/compaction-script.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-compaction-')

const WINDOW = 16_000

function promptTokens(request: ReceivedRequest): number {
  return Math.ceil(promptText(request).length / 4)
}

function boundaries(events: readonly SessionEvent[]): ContextCompactedData[] {
  return events
    .filter((event) => event.type === 'context/compacted')
    .map((event) => event.data as ContextCompactedData)
}

describe('context compaction', () => {
  it('completes a turn of 24 bash calls whose outputs are three times the window, and the session goes on', async () => {
    const home = tempHome()
    const work = workScript({ calls: 24, lines: 260 })
    const config = { model: { contextWindow: WINDOW, maxRetries: 0 } }
    const first = await start({ home, script: work.script, config, strict: { contextWindow: WINDOW } })
    const agent = await first.harness.agents.create({ sessionId: 'long-turn', meta: { cwd: home } })
    const result = await agent.prompt('work one')
    expect(result).toMatchObject({ reason: 'completed', text: 'finished: work one' })

    const outputs = agent.session.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data as { content: string }).content)
    expect(outputs).toHaveLength(24)
    const outputTokens = outputs.reduce((sum, content) => sum + content.length / 4, 0)
    expect(outputTokens).toBeGreaterThan(3 * WINDOW)

    // Every request the stand-in answered fitted: it refuses the rest with a 400.
    for (const request of first.model.requests) {
      expect(promptTokens(request) + (request.max_tokens ?? 0)).toBeLessThanOrEqual(WINDOW)
    }
    // max_tokens was lowered to what the window had left (the default is 131,072).
    expect(first.model.requests.every((request) => (request.max_tokens ?? 0) < WINDOW)).toBe(true)
    const compactions = boundaries(agent.session.events)
    expect(compactions.length).toBeGreaterThan(0)
    expect(compactions.every((data) => data.trigger === 'auto' && data.tokensAfter < data.tokensBefore)).toBe(
      true,
    )
    expect(compactions.some((data) => data.summary !== undefined || (data.pruned?.length ?? 0) > 0)).toBe(
      true,
    )

    // The next turn in the same process.
    expect(await agent.prompt('work two')).toMatchObject({ reason: 'completed', text: 'finished: work two' })
    await first.close()

    // A resume in a new process (a new harness on the same home), then a fork of it.
    const second = await start({ home, script: work.script, config, strict: { contextWindow: WINDOW } })
    const resumed = await second.harness.agents.resume({ resumeSessionId: 'long-turn' })
    expect(await resumed.prompt('work three')).toMatchObject({ reason: 'completed' })
    const fork = await second.harness.agents.fork({
      sourceSessionId: 'long-turn',
      sessionId: 'long-turn-fork',
    })
    expect(boundaries(fork.session.events).length).toBe(boundaries(resumed.session.events).length)
    expect(await fork.prompt('work four')).toMatchObject({ reason: 'completed' })
    for (const request of second.model.requests) {
      expect(promptTokens(request) + (request.max_tokens ?? 0)).toBeLessThanOrEqual(WINDOW)
    }
    // The summary reached the model as a user message after the system prompt.
    const last = second.model.requests.at(-1)!
    if (boundaries(fork.session.events).some((data) => data.summary !== undefined)) {
      expect(JSON.stringify(last.messages)).toContain(SUMMARY_MESSAGE_MARK)
    }
  })

  it('prunes one tool result too big for the window when it is the last message, and the turn goes on', async () => {
    // 10k tokens: the system prompt and tools fit with room, one bash output (about 7.5k
    // tokens) does not. It used to end the turn as "window too small" before compacting.
    const window = 10_000
    const home = tempHome()
    const work = workScript({ calls: 1, lines: 1_500 })
    const config = { model: { contextWindow: window, maxRetries: 0 } }
    const test = await start({ home, script: work.script, config, strict: { contextWindow: window } })
    const agent = await test.harness.agents.create({ sessionId: 'one-big-result', meta: { cwd: home } })
    const result = await agent.prompt('one big')
    expect(result).toMatchObject({ reason: 'completed', text: 'finished: one big' })

    const [output] = agent.session.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data as { content: string }).content)
    expect(output!.length / 4).toBeGreaterThan(window / 2)
    const [compaction] = boundaries(agent.session.events)
    expect(compaction).toMatchObject({ trigger: 'auto' })
    expect(compaction!.pruned).toHaveLength(1)
    // The model saw the placeholder, and every request fitted.
    const answered = work.requests.filter((request) => request.messages.some((m) => m.role === 'tool'))
    expect(JSON.stringify(answered.at(-1)!.messages)).toContain('[output pruned to save context')
    for (const request of test.model.requests) {
      expect(promptTokens(request) + (request.max_tokens ?? 0)).toBeLessThanOrEqual(window)
    }
  })
})
