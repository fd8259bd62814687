// How full the next request is (agent.contextUsage): after a request the server's count is
// the base (measured), and the breakdown's parts are estimates of the same request.

import { describe, expect, it } from 'vitest'
import { ESTIMATE_ERROR } from '../../src/context/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-context-usage-')

describe('context usage', () => {
  it('starts from the last prompt_tokens after a turn, within the estimate error of it', async () => {
    const home = tempHome()
    const { harness } = await start({
      home,
      script: [{ reasoning: 'Fine.', text: 'hello back' }],
      config: { model: { contextWindow: 64_000 } },
      strict: { contextWindow: 64_000 },
    })
    const agent = await harness.agents.create({ sessionId: 'usage', meta: { cwd: home } })
    const before = agent.contextUsage()!
    expect(before.measured).toBe(false)
    await agent.prompt('hello')
    const after = agent.contextUsage()!
    const prompt = agent.session.events.find((event) => event.type === 'assistant/message')!.data as {
      usage: { promptTokens: number }
    }
    expect(after.measured).toBe(true)
    expect(after.window).toBe(64_000)
    // The server's count plus the answer appended since.
    expect(after.tokens).toBeGreaterThan(prompt.usage.promptTokens)
    expect(after.tokens - prompt.usage.promptTokens).toBeLessThan(prompt.usage.promptTokens * ESTIMATE_ERROR)
  })
})
