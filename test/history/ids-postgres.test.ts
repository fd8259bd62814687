// The id and title contract on PostgreSQL, and the version-5 migration: the prefix lookup
// is an index range scan, not a sequential scan of sessions.

import { expect, it } from 'vitest'
import { usePostgresBackends } from '../persistence/postgres/backends.js'
import { describePostgres, describeSkipReason, useCluster } from '../support/postgres.js'
import { runIdContract } from './ids-contract.js'

describePostgres(`id prefixes and titles on postgres${describeSkipReason()}`, () => {
  const pg = useCluster()
  const open = usePostgresBackends(pg)

  runIdContract(() => open({ schema: pg.schema() }))

  it('looks prefixes up through the text_pattern_ops index', async () => {
    const schema = pg.schema()
    const backend = await open({ schema })
    await backend.ready()
    const pool = await backend.store.db()
    const client = await pool.connect()
    try {
      await client.query('SET enable_seqscan = off')
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT header FROM "${schema}".sessions WHERE id ~>=~ $1 AND id ~<~ $2 ORDER BY id LIMIT 6`,
        ['abcdef', 'abcdeg'],
      )
      expect(rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('sessions_id_prefix')
    } finally {
      client.release()
    }
  })
})
