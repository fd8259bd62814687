// `dsh stdio` handles requests in the order they were read: a `session/cancel` after an
// accepted prompt cancels it (also in one batch), and every request read after `shutdown`
// is answered STDIO_SHUTTING_DOWN rather than dropped.

import { describe, expect, it } from 'vitest'
import { useTestHarnesses } from '../../support/harness.js'
import { startStdioClient } from './stdio-client.js'

const start = useTestHarnesses()

const line = (message: object) => JSON.stringify({ jsonrpc: '2.0', ...message })

describe('stdio request order', () => {
  it('a batch [session/prompt, session/cancel] cancels the prompt it just accepted', async () => {
    // No delay needed: without the fix the cancel finds no turn yet and the prompt completes.
    const { harness } = await start({ script: [{ text: 'first' }, { text: 'second' }] })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'batch-cancel' })
    client.sendLine(
      `[${line({ id: 'p', method: 'session/prompt', params: { text: 'hello' } })},${line({ id: 'c', method: 'session/cancel' })}]`,
    )
    const batch = await client.waitFor((message) => Array.isArray(message))
    expect(batch).toEqual([
      expect.objectContaining({ id: 'p', result: expect.objectContaining({ turn: 1, reason: 'aborted' }) }),
      expect.objectContaining({ id: 'c', result: { cancelled: true } }),
    ])
    // The session stays usable.
    expect((await client.request('session/prompt', { text: 'again' })).result).toMatchObject({
      turn: 2,
      reason: 'completed',
    })
    await client.request('shutdown')
    await client.done
  })

  it('answers every request read after shutdown with STDIO_SHUTTING_DOWN; notifications get nothing', async () => {
    const { harness } = await start()
    const client = startStdioClient(harness)
    client.sendLine(
      [
        line({ id: 1, method: 'initialize' }),
        line({ id: 2, method: 'shutdown' }),
        line({ id: 3, method: 'session/prompt', params: { text: 'hi' } }),
        line({ method: 'session/cancel' }),
        line({ id: 4, method: 'no/such' }),
      ].join('\n'),
    )
    await client.done
    const responses = client.messages.filter((message) => message.method === undefined)
    expect(responses.map((message) => message.id)).toEqual([1, 2, 3, 4])
    for (const refused of responses.slice(2)) {
      expect(refused.error).toMatchObject({ code: -32000, data: { code: 'STDIO_SHUTTING_DOWN' } })
    }
  })
})
