// The usage ledger in PostgreSQL session rows: a writer of schema version 1 (the
// ten-argument append_events) leaves it behind, and readers and the next writer catch
// up from the events; a row from before version 2 (no ledger) is folded from all events.

import { expect, it } from 'vitest'
import { sessionKey } from '../../../src/persistence/postgres/index.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { ledgerOf } from '../../../src/usage/ledger.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { LogBuilder, makeHeader } from '../fixtures.js'
import { usePostgresBackends } from './backends.js'

describePostgres(`postgres usage ledger${describeSkipReason()}`, () => {
  const pg = useCluster()
  const open = usePostgresBackends(pg)
  const backend = (schema: string) => open({ schema })

  it('catches up with events a version-1 writer appended, on read and on the next append', async () => {
    const schema = pg.schema()
    const writer = await backend(schema)
    const log = new LogBuilder()
      .paidTurn(1, 'a', 'deepseek-flash', 100)
      .paidTurn(2, 'b', 'deepseek-v4-pro', 300)
      // A summary call is priced like a step: the catch-up must read compactions too.
      .add('context/compacted', {
        trigger: 'manual',
        summary: 'a and b',
        keptFrom: 18,
        tokensBefore: 900,
        tokensAfter: 90,
        usage: { promptTokens: 800, completionTokens: 80, totalTokens: 880 },
      })
      .paidTurn(3, 'c', 'deepseek-flash', 50)
    const [first, second, third] = [log.events.slice(0, 9), log.events.slice(9, 19), log.events.slice(19)]
    await writer.create(makeHeader('mixed'))
    await writer.append('mixed', first)
    // An older dsh holding the lease appends the second turn with the function it knows.
    const pool = await writer.store.db()
    const s = `"${schema}"`
    const key = sessionKey('mixed')
    const { rows } = await pool.query<{ token: string }>(
      `SELECT token FROM ${s}.leases WHERE session_key = $1`,
      [key],
    )
    await pool.query(`SELECT ${s}.append_events($1, $2, $3, $4, $5, $6, $7, NULL, 2, false)`, [
      key,
      rows[0]!.token,
      ...columns(second),
    ])
    await writer.release('mixed')
    const row = async () =>
      (
        await pool.query<{ usage: unknown; usage_events: number }>(
          `SELECT usage, usage_events FROM ${s}.sessions WHERE key = $1`,
          [key],
        )
      ).rows[0]!
    expect(await row()).toEqual({ usage: ledgerOf(first), usage_events: first.length })

    const reader = await backend(schema)
    expect((await reader.list())[0]!.usage).toEqual(ledgerOf([...first, ...second]))
    // The next writer (no open: it takes the lease on append) continues the caught-up ledger.
    await reader.append('mixed', third)
    await reader.release('mixed')
    expect(await row()).toEqual({ usage: ledgerOf(log.events), usage_events: log.events.length })

    // A row stored before version 2 has no ledger: it is folded from every event.
    await pool.query(`UPDATE ${s}.sessions SET usage = NULL, usage_events = 0 WHERE key = $1`, [key])
    expect((await (await backend(schema)).list())[0]!.usage).toEqual(ledgerOf(log.events))
  })
})

/** `append_events`' per-event arrays. */
function columns(events: readonly SessionEvent[]): unknown[] {
  return [
    events.map((event) => event.seq),
    events.map((event) => event.type),
    events.map((event) => event.time),
    events.map((event) => JSON.stringify(event.data)),
    events.map((event) => event.ignorable === true),
  ]
}
