// Faults of the PostgreSQL backend on a real server: connections cut mid-session,
// a stuck database (statement timeout), and a lease lost in the middle of a turn.

import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { startTestHarness, type TestHarness } from '../../support/harness.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { LogBuilder, makeHeader, plain } from '../fixtures.js'
import { usePostgresBackends } from './backends.js'

describePostgres(`postgres faults${describeSkipReason()}`, { timeout: 120_000 }, () => {
  const pgc = useCluster()
  const tests: TestHarness[] = []
  const admins: pg.Client[] = []
  afterEach(async () => {
    for (const test of tests.splice(0)) await test.close()
    for (const admin of admins.splice(0)) await admin.end()
  })

  const backend = usePostgresBackends(pgc)

  async function admin(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: pgc.cluster.url, application_name: 'test-admin' })
    await client.connect()
    admins.push(client)
    return client
  }

  it('reconnects when its connections are cut between checkpoints; nothing is written twice', async () => {
    const schema = pgc.schema()
    const writer = await backend({ schema })
    const log = new LogBuilder().completedTurn(0, 'one').completedTurn(1, 'two')
    await writer.create(makeHeader('cut'))
    await writer.append('cut', log.events.slice(0, 9))
    const terminated = await (await admin()).query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dsh'",
    )
    expect(terminated.rowCount).toBeGreaterThan(0)
    await writer.append('cut', log.events.slice(9))
    expect(plain((await writer.load('cut')).events)).toEqual(log.events)
  })

  it('a stuck database fails the checkpoint after the statement timeout; the retry lands once', async () => {
    const schema = pgc.schema()
    const writer = await backend({ schema, statementTimeoutMs: 300 })
    const log = new LogBuilder().completedTurn(0, 'one').completedTurn(1, 'two')
    await writer.create(makeHeader('stuck'))
    await writer.append('stuck', log.events.slice(0, 9))

    const blocker = await admin()
    await blocker.query('BEGIN')
    await blocker.query(`SELECT 1 FROM "${schema}".sessions FOR UPDATE`)
    const started = Date.now()
    const error = await writer.append('stuck', log.events.slice(9)).then(
      () => undefined,
      (reason: unknown) => reason as { code?: string; message: string },
    )
    expect(error?.code).toBe(PersistenceErrorCode.Timeout)
    expect(error?.message).toMatch(
      /did not finish the append within 300 ms \(statement timeout\); nothing was written/,
    )
    expect(Date.now() - started).toBeLessThan(5_000)
    await blocker.query('ROLLBACK')

    await writer.append('stuck', log.events.slice(9))
    expect(plain((await writer.load('stuck')).events)).toEqual(log.events)
  })

  it('a lease taken over mid-turn ends the turn with a clear error; nothing is duplicated', async () => {
    const schema = pgc.schema()
    const thief = await admin()
    const test = await startTestHarness({
      config: { persistence: { backend: 'postgres', url: pgc.cluster.url, schema, hostName: 'host-a' } },
      script: [
        async () => {
          // Another host takes the session over while the model is answering.
          await thief.query(
            `UPDATE "${schema}".leases SET token = token + 1, nonce = gen_random_uuid(), host = 'host-b', pid = 4242`,
          )
          return { text: 'an answer that must not be saved' }
        },
      ],
    })
    tests.push(test)
    const agent = await test.harness.agents.create({ sessionId: 'taken', meta: { cwd: test.home } })
    const result = await agent.prompt('hello')
    expect(result.reason).toBe('error')
    expect(result.error).toMatch(
      /session could not be saved: session "taken": this process lost its writer lease \(now held by process 4242 on host-b\)/,
    )
    const stored = await thief.query<{ seq: number; type: string }>(
      `SELECT seq, type FROM "${schema}".events ORDER BY seq`,
    )
    expect(stored.rows.map((row) => row.seq)).toEqual([...stored.rows.keys()])
    expect(stored.rows.map((row) => row.type)).not.toContain('assistant/message')
  })
})
