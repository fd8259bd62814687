// `dsh stdio` session/compact: compacts the attached session with the client's instructions,
// streams the compaction as session/output notifications, and session/cancel cancels it.

import { describe, expect, it } from 'vitest'
import type { ScriptRequest } from '../../../src/llm/index.js'
import { isSummaryRequest, SUMMARY_REQUEST_MARK, turnPrompt } from '../../support/compaction-script.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { startStdioClient } from './stdio-client.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-stdio-compact-')

const answer = (request: ScriptRequest) =>
  isSummaryRequest(request)
    ? { reasoning: 'Summing up.', text: '1. Task: greet\n6. Next steps: none' }
    : { reasoning: 'Easy.', text: `answer to ${turnPrompt(request)}` }

describe('dsh stdio session/compact', () => {
  it('compacts with instructions and streams the compaction as output notifications', async () => {
    const home = tempHome()
    const { harness, model } = await start({ home, script: [answer, answer] })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'stdio-compact', cwd: home })
    const early = await client.request('session/compact', {})
    expect(early.error).toMatchObject({ data: { code: 'CONTEXT_NOTHING_TO_COMPACT' } })
    await client.request('session/prompt', { text: 'hello' })

    const compacted = await client.request('session/compact', { instructions: 'focus on the tests' })
    expect(compacted.result).toMatchObject({ summarised: true, tokensBefore: expect.any(Number) })
    expect(compacted.result.line).toMatch(/^context compacted: [\d.]+k? → [\d.]+k? tokens$/)
    const summary = model.requests.at(-1)!.messages.at(-1)!
    expect(summary.content).toContain(SUMMARY_REQUEST_MARK)
    expect(summary.content).toContain('focus on the tests')
    const outputs = client
      .notifications('session/output')
      .map((message) => message.params.output)
      .filter((output) => output.type === 'compaction')
    const { line: _line, ...result } = compacted.result
    expect(outputs).toEqual([
      { type: 'compaction', phase: 'start', trigger: 'manual' },
      { type: 'compaction', phase: 'end', trigger: 'manual', result },
    ])
    const events = client.notifications('session/event').map((message) => message.params.event.type)
    expect(events.at(-1)).toBe('context/compacted')
    await client.request('shutdown')
  })

  it('session/cancel cancels a running compaction and the log stays as it was', async () => {
    const home = tempHome()
    const stalled = (request: ScriptRequest) =>
      isSummaryRequest(request) ? { stallMs: 30_000, text: 'too late' } : answer(request)
    const { harness } = await start({ home, script: [stalled, stalled] })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'stdio-cancel', cwd: home })
    await client.request('session/prompt', { text: 'hello' })
    const compacting = client.request('session/compact', {})
    await client.waitFor((message) => message.params?.output?.type === 'compaction')
    const cancel = await client.request('session/cancel', {})
    expect(cancel.result).toEqual({ cancelled: true })
    expect((await compacting).error).toMatchObject({ data: { code: 'CONTEXT_ABORTED' } })
    const types = client.notifications('session/event').map((message) => message.params.event.type)
    expect(types).not.toContain('context/compacted')
    await client.request('shutdown')
  })
})
