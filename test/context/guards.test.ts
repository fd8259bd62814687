// The limits around long turns: bad context settings are one-line errors before any
// request, a window too small for the fixed part of a request is refused up front, and
// the repeat guard ends a turn that makes the same call with the same result again and again.

import { describe, expect, it } from 'vitest'
import { REPEAT_END_AT, REPEAT_REMIND_AT } from '../../src/agent/repeat-guard.js'
import { validateConfig } from '../../src/config/index.js'
import { useTestHarnesses } from '../support/harness.js'

const start = useTestHarnesses()

describe('context settings', () => {
  it.each([
    [
      { compaction: { threshold: 1 } },
      'compaction.threshold: threshold must be between 0 and 1 (exclusive), e.g. 0.85',
    ],
    [
      { compaction: { threshold: 0 } },
      'compaction.threshold: threshold must be between 0 and 1 (exclusive), e.g. 0.85',
    ],
    [
      { model: { contextWindow: 0 } },
      'model.contextWindow: contextWindow must be a positive whole number of tokens',
    ],
    [
      { model: { contextWindow: 1.5 } },
      'model.contextWindow: contextWindow must be a positive whole number of tokens',
    ],
    [
      { model: { contextWindow: '8k' } },
      'model.contextWindow: contextWindow must be a positive whole number of tokens',
    ],
  ])('refuses %j in one line', (config, message) => {
    expect(() => validateConfig('config.yaml', config)).toThrow(`config.yaml: ${message}`)
  })

  it('refuses a window too small for the system prompt and tools before any request', async () => {
    const test = await start({ script: [{ text: 'never' }], config: { model: { contextWindow: 2_000 } } })
    const agent = await test.harness.agents.create({ sessionId: 'tiny-window' })
    const result = await agent.prompt('hello')
    expect(result.reason).toBe('error')
    expect(result.error).toMatch(
      /^the context window \(2000 tokens, model\.contextWindow\) is too small to hold the system prompt, the tool definitions and one message \(about \d+ tokens\) with room to answer$/,
    )
    expect(test.model.requests).toHaveLength(0)
  })

  it('lowers max_tokens to what the window has left', async () => {
    const test = await start({
      script: [{ text: 'short' }],
      config: { model: { contextWindow: 20_000 } },
      strict: { contextWindow: 20_000 },
    })
    const agent = await test.harness.agents.create({ sessionId: 'fit' })
    expect((await agent.prompt('hello')).reason).toBe('completed')
    const [request] = test.model.requests
    expect(request!.max_tokens).toBeLessThan(20_000)
    expect(request!.max_tokens).toBeGreaterThan(10_000)
  })
})

describe('repeat guard', () => {
  it('reminds the model, then ends the turn with its own reason', async () => {
    const same = { toolCalls: [{ name: 'bash', arguments: { command: 'echo stuck' } }], reasoning: 'again' }
    const test = await start({ script: Array.from({ length: REPEAT_END_AT + 2 }, () => same) })
    const agent = await test.harness.agents.create({ sessionId: 'stuck' })
    const result = await agent.prompt('loop')
    expect(result).toMatchObject({ reason: 'repeated' })
    expect(result.error).toBe(
      `the model made the same tool call with the same result ${REPEAT_END_AT} times in a row`,
    )
    const results = agent.session.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data as { content: string }).content)
    expect(results).toHaveLength(REPEAT_END_AT)
    expect(
      results.slice(0, REPEAT_REMIND_AT - 1).every((content) => !content.includes('identical call')),
    ).toBe(true)
    // Counted in words a reader can say ("number 3", not "3th").
    for (let i = REPEAT_REMIND_AT - 1; i < results.length; i++)
      expect(results[i]).toContain(
        `[dsh: this is identical call number ${i + 1} in a row with the same result.`,
      )
    expect(test.model.requests).toHaveLength(REPEAT_END_AT)
  })

  it('does not count calls whose results differ', async () => {
    const counting = Array.from({ length: REPEAT_END_AT + 1 }, () => ({
      toolCalls: [{ name: 'bash', arguments: { command: 'date +%N' } }],
      reasoning: 'poll',
    }))
    const test = await start({ script: [...counting, { text: 'done polling' }] })
    const agent = await test.harness.agents.create({ sessionId: 'polling' })
    expect(await agent.prompt('poll')).toMatchObject({ reason: 'completed', text: 'done polling' })
  })
})
