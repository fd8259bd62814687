// Stdio entry point checks: the one id rule at initialize, a conflict between
// --session-id and initialize.sessionId, and a session another writer holds refused
// at initialize rather than on every prompt.

import { describe, expect, it } from 'vitest'
import { useTestHarnesses } from '../../support/harness.js'
import { startStdioClient } from './stdio-client.js'

const start = useTestHarnesses()

describe('stdio initialize', () => {
  it.each([
    ['a NUL', 'bad\u0000id'],
    ['a lone surrogate', 'bad\ud800'],
    ['an over-long id', 'x'.repeat(4097)],
  ])('refuses %s and stores nothing', async (_name, id) => {
    const { harness } = await start()
    const client = startStdioClient(harness)
    const answer = await client.request('initialize', { sessionId: id })
    expect(answer.error?.message).toMatch(/invalid session id/)
    expect(await harness.sessions.listStored()).toEqual([])
    client.end()
    await client.done
  })

  it('refuses a sessionId that conflicts with --session-id; the same id is fine', async () => {
    const { harness } = await start()
    const client = startStdioClient(harness, { sessionId: 'fixed' })
    const conflict = await client.request('initialize', { sessionId: 'other' })
    expect(conflict.error?.message).toContain('conflicts with --session-id "fixed"')
    const same = await client.request('initialize', { sessionId: 'fixed' })
    expect(same.result).toMatchObject({ sessionId: 'fixed' })
    client.end()
    await client.done
  })

  it('a session another writer holds is refused at initialize, naming the holder', async () => {
    const first = await start({ script: [{ text: 'one' }] })
    const owner = startStdioClient(first.harness)
    await owner.request('initialize', { sessionId: 'held' })
    expect((await owner.request('session/prompt', { text: 'hi' })).result).toMatchObject({
      reason: 'completed',
    })

    // A second harness on the same home (another process, as far as storage goes).
    const second = await start({ home: first.home })
    const other = startStdioClient(second.harness)
    const refused = await other.request('initialize', { sessionId: 'held' })
    expect(refused.error?.message).toMatch(/is being written by this process/)
    other.end()
    await other.done
    owner.end()
    await owner.done
  })
})
