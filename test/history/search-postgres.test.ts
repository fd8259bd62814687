// The search contract on PostgreSQL, its results compared whole with the memory
// backend's, and the version-4 and -6 migrations: a schema from before either is
// searched alike at once, and new appends and the backfill fill the new columns.

import { Context } from 'cordis'
import { afterEach, expect, it } from 'vitest'
import { searchSessions } from '../../src/history/index.js'
import { MemorySessionBackend } from '../../src/persistence/memory/memory-backend.js'
import type { SessionPersistence } from '../../src/persistence/persistence.js'
import { LogBuilder, makeHeader } from '../persistence/fixtures.js'
import { usePostgresBackends } from '../persistence/postgres/backends.js'
import { describePostgres, describeSkipReason, useCluster } from '../support/postgres.js'
import { allResults, NOW, runSearchContract, storeCorpus } from './search-contract.js'

describePostgres(`search on postgres${describeSkipReason()}`, () => {
  const pg = useCluster()
  const open = usePostgresBackends(pg)
  const fibers: { dispose(): Promise<unknown> }[] = []
  afterEach(async () => {
    for (const fiber of fibers.splice(0)) await fiber.dispose()
  })

  runSearchContract(() => open({ schema: pg.schema() }))

  /** A fresh schema holding the contract's corpus, its results, and a pool on it for raw SQL. */
  async function storedCorpus() {
    const schema = pg.schema()
    const writer = await open({ schema })
    await storeCorpus(writer)
    const expected = await allResults(writer)
    return { schema, expected, pool: await writer.store.db(), s: `"${schema}"` }
  }

  it('gives the memory backend results, field by field', async () => {
    const ctx = new Context()
    const fiber = ctx.plugin(MemorySessionBackend)
    fibers.push(fiber)
    await fiber.await()
    const memory = ctx.get('sessionPersistence') as SessionPersistence
    await storeCorpus(memory)
    const postgres = await open({ schema: pg.schema() })
    await storeCorpus(postgres)
    expect(await allResults(postgres)).toEqual(await allResults(memory))
  })

  it('migrates a schema from before search: found at once, then indexed by the backfill', async () => {
    const { schema, expected, pool, s } = await storedCorpus()
    // Back to version 3: no search or bounds column, indexes (version 5's too) or twelve-argument append_events.
    await pool.query(`DROP FUNCTION ${s}.append_events(bytea, bigint, integer[], text[], bigint[], json[],
      boolean[], text, integer, boolean, json, text[])`)
    await pool.query(`ALTER TABLE ${s}.events DROP COLUMN search, DROP COLUMN bounds`)
    await pool.query(`DROP INDEX ${s}.sessions_id_prefix, ${s}.events_titles`)
    await pool.query(`DELETE FROM ${s}.schema_migrations WHERE version >= 4`)

    const upgraded = await open({ schema })
    await upgraded.ready()
    const count = async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${s}.events WHERE search IS NOT NULL`)).rows[0].n
    expect(await count()).toBe(0)
    // Nothing indexed yet, and a search (which never writes) finds everything already.
    expect(await allResults(upgraded)).toEqual(expected)
    expect(await count()).toBe(0)
    const filled = await upgraded.store.backfillSearch()
    expect(filled).toBeGreaterThan(10)
    expect(await count()).toBe(filled)
    expect(await allResults(upgraded)).toEqual(expected)
    // The index is in use for an indexed query.
    const results = await searchSessions(upgraded, { query: 'kubectl', now: NOW })
    expect(results.map((result) => result.kind)).toEqual(['tool-call'])
  })

  it('migrates a version-5 schema: the same results at once, new rows and the backfill fill `bounds`', async () => {
    const { schema, expected, pool, s } = await storedCorpus()
    const count = async (where: string) =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${s}.events WHERE ${where}`)).rows[0].n
    // Each indexed row's bounds column holds its first lexeme when that is a bounds mark.
    const lexeme = '(tsvector_to_array(search))[1]'
    const marks = `search IS NOT NULL AND ${lexeme} LIKE '-b-%'`
    const wrong = `bounds IS DISTINCT FROM CASE WHEN ${lexeme} LIKE '-b-%' THEN ${lexeme} END`
    expect(await count(marks)).toBeGreaterThan(10)
    expect(await count(`bounds IS NOT NULL`)).toBe(await count(marks))
    expect(await count(wrong)).toBe(0)

    // Back to version 5: no bounds column (the migration replaces append_events).
    await pool.query(`ALTER TABLE ${s}.events DROP COLUMN bounds`)
    await pool.query(`DELETE FROM ${s}.schema_migrations WHERE version >= 6`)
    const upgraded = await open({ schema })
    await upgraded.ready()
    expect(await count('bounds IS NOT NULL')).toBe(0)
    expect(await allResults(upgraded)).toEqual(expected)

    await upgraded.create(makeHeader('after-upgrade', { cwd: '/w' }))
    await upgraded.append(
      'after-upgrade',
      new LogBuilder().add('user/message', { text: 'a zither tune' }).events,
    )
    await upgraded.release('after-upgrade')
    expect(await count('bounds IS NOT NULL')).toBe(1)
    await pool.query(`UPDATE ${s}.events SET search = NULL WHERE search IS NOT NULL`)
    expect(await upgraded.store.backfillSearch()).toBeGreaterThan(10)
    expect(await count(wrong)).toBe(0)
    expect(await count(`bounds IS NOT NULL`)).toBe(await count(marks))
    expect(await allResults(upgraded)).toEqual(expected)
  })
})
