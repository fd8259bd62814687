// A model stream that never ends is cut at its configured bounds (model.streamMaxDurationMs,
// model.streamMaxBytes): the turn ends with an error that says which bound, the request is
// not retried, and the partial answer in the log is no larger than the bound.

import { describe, expect, it } from 'vitest'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

function loggedAnswer(events: readonly { type: string; data: unknown }[]): string {
  return events
    .filter((event) => event.type === 'assistant/message')
    .map((event) => (event.data as { message: { content: string } }).message.content)
    .join('')
}

describe('stream bounds in a turn', () => {
  it('ends the turn at streamMaxBytes with a clear error and a bounded partial answer', async () => {
    const { harness, model } = await start({
      config: { model: { maxRetries: 3, streamMaxBytes: 4096 } },
      script: [{ endless: { text: 'y'.repeat(64), intervalMs: 1 } }, { text: 'never asked' }],
    })
    const agent = await harness.agents.create({ sessionId: 'runaway-bytes', meta: { cwd: tempDir() } })
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('error')
    expect(result.error).toMatch(
      /response past its bound \(the answer passed 4096 bytes of text \(model\.streamMaxBytes\)\)/,
    )
    const logged = loggedAnswer(agent.session.events)
    expect(logged.length).toBeGreaterThan(0)
    expect(logged.length).toBeLessThanOrEqual(4096)
    expect(model.requests).toHaveLength(1)
  })

  it('ends the turn at streamMaxDurationMs although chunks keep coming', async () => {
    const { harness, model } = await start({
      config: { model: { maxRetries: 3, streamMaxDurationMs: 400 } },
      script: [{ endless: { text: 'z', intervalMs: 5 } }, { text: 'never asked' }],
    })
    const agent = await harness.agents.create({ sessionId: 'runaway-time', meta: { cwd: tempDir() } })
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('error')
    expect(result.error).toMatch(/still streaming after 400 ms \(model\.streamMaxDurationMs\)/)
    expect(model.requests).toHaveLength(1)
  })
})
