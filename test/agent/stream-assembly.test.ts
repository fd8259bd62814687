// Usage of a step whose stream lost its usage chunk: the request was billed, so the step
// records an estimate, marked `estimated` (docs/usage.md), whether the answer was cut
// midway or the connection dropped after the finish_reason, before the usage came.

import { describe, expect, it } from 'vitest'
import type { Usage } from '../../src/llm/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

function loggedUsages(events: readonly { type: string; data: unknown }[]): (Usage | undefined)[] {
  return events
    .filter((event) => event.type === 'assistant/message')
    .map((event) => (event.data as { usage?: Usage }).usage)
}

describe('usage of a step whose usage chunk never came', () => {
  it('records an estimate when the connection drops after finish_reason, and the turn completes', async () => {
    // Events: role, "complete ", "answer", finish, usage, [DONE]: cut before the usage.
    const { harness } = await start({ script: [{ text: 'complete answer', cutAfterChunks: 4 }] })
    const agent = await harness.agents.create({ sessionId: 'finish-then-cut', meta: { cwd: tempDir() } })
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('completed')
    const [usage] = loggedUsages(agent.session.events)
    expect(usage).toMatchObject({ estimated: true, promptTokens: expect.any(Number) })
    expect(usage!.promptTokens).toBeGreaterThan(0)
    expect(usage!.completionTokens).toBeGreaterThan(0)
  })

  it('counts tool calls as arrived output: a finished tool-calling answer cut before its usage is estimated', async () => {
    // Events: role, call header, its arguments (under 16 characters), finish, usage, [DONE].
    const { harness } = await start({
      script: [
        { toolCalls: [{ name: 'no_such_tool', arguments: { a: 1 } }], cutAfterChunks: 4 },
        { text: 'done' },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'tools-then-cut', meta: { cwd: tempDir() } })
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('completed')
    const [cut, reported] = loggedUsages(agent.session.events)
    expect(cut).toMatchObject({ estimated: true })
    expect(cut!.completionTokens).toBeGreaterThan(0)
    // The step the server reported is recorded as reported, unmarked.
    expect(reported!.promptTokens).toBeGreaterThan(0)
    expect(reported).not.toHaveProperty('estimated')
  })
})
