// The writer lease across processes: a writer paused (SIGSTOP) past its lease loses
// the session to another writer, and when it wakes (SIGCONT) its append is refused by
// the database in the append's own transaction; the other's history stays intact.

import { afterEach, beforeAll, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { PostgresSessionBackend } from '../../../src/persistence/postgres/index.js'
import type { LineChild } from '../../support/line-child.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { type Harness, LogBuilder, makeHeader, plain, startHarness } from '../fixtures.js'
import { ensureBuilt, spawnBackendChild } from './processes.js'

const LEASE_MS = 1_000

describePostgres(
  `postgres writer lease across processes${describeSkipReason()}`,
  { timeout: 120_000 },
  () => {
    const pg = useCluster()
    const children: LineChild[] = []
    const harnesses: Harness[] = []

    beforeAll(() => ensureBuilt(), 180_000)
    afterEach(async () => {
      for (const child of children.splice(0)) await child.kill()
      for (const harness of harnesses.splice(0)) await harness.dispose()
    })

    async function start(config: Record<string, unknown>): Promise<Harness> {
      const harness = await startHarness({ plugin: PostgresSessionBackend, config, durable: true })
      harnesses.push(harness)
      return harness
    }

    async function pausedWriterLosesTheLease(heartbeatMs: number): Promise<{ code: string | undefined }> {
      const config = { url: pg.cluster.url, schema: pg.schema(), leaseMs: LEASE_MS }
      const a = await spawnBackendChild({ ...config, heartbeatMs })
      children.push(a)
      const log = new LogBuilder().completedTurn(0, 'by A').openTurn(1, 'A is working')
      await a.ok('create', { header: makeHeader('fenced') })
      await a.ok('append', { id: 'fenced', events: log.events })

      a.signal('SIGSTOP')
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.6))

      // B takes the expired lease over, repairs A's open turn and writes a turn of its own.
      const b = await start(config)
      const repaired = await b.backend().open('fenced')
      const n = repaired.events.length
      expect(n).toBeGreaterThan(log.events.length)
      expect(repaired.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
      const own = new LogBuilder(n).completedTurn(2, 'by B').events
      await b.backend().append('fenced', own)

      a.signal('SIGCONT')
      const late = new LogBuilder(log.events.length).add('assistant/message', {
        message: { content: 'A woke' },
      })
      const reply = await a.call('append', { id: 'fenced', events: late.events })
      expect(reply.ok).toBe(false)

      const stored = plain(await b.backend().load('fenced'))
      expect(stored.events.map((event) => event.seq)).toEqual([...Array(n + own.length).keys()])
      expect(stored.events.slice(0, log.events.length)).toEqual(log.events)
      expect(stored.events.slice(n)).toEqual(own)
      expect(JSON.stringify(stored.events)).not.toContain('A woke')
      return { code: reply.code }
    }

    it('refuses the woken writer in the append transaction (fencing token), heartbeat off', async () => {
      const { code } = await pausedWriterLosesTheLease(0)
      expect(code).toBe(PersistenceErrorCode.LeaseLost)
    })

    it('refuses the woken writer with its heartbeat on (it learns of the loss first, or is fenced)', async () => {
      const { code } = await pausedWriterLosesTheLease(LEASE_MS / 4)
      expect([PersistenceErrorCode.LeaseLost, PersistenceErrorCode.Locked]).toContain(code)
    })

    it('a live writer keeps its lease by heartbeat; the second writer is told who holds it', async () => {
      const config = { url: pg.cluster.url, schema: pg.schema(), leaseMs: LEASE_MS, hostName: 'host-a' }
      const a = await spawnBackendChild(config)
      children.push(a)
      await a.ok('create', { header: makeHeader('busy') })
      await a.ok('append', { id: 'busy', events: new LogBuilder().openTurn(1, 'working').events })
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2))

      const b = await start({ ...config, hostName: 'host-b' })
      const seen = await b.backend().load('busy') // read as stored: A's open turn is live
      expect(seen.events).toHaveLength(6)
      const error = await b
        .backend()
        .append('busy', new LogBuilder(6).add('user/message', { text: 'B' }).events)
        .then(
          () => undefined,
          (reason: unknown) => reason,
        )
      expect(isDshError(error, PersistenceErrorCode.Locked)).toBe(true)
      expect((error as Error).message).toContain(`process ${a.pid} on host-a`)
      // `dsh sessions unlock` without --force refuses, pointing at --force.
      const refused = await b
        .backend()
        .unlock('busy')
        .then(
          () => undefined,
          (reason: unknown) => reason as Error,
        )
      expect(isDshError(refused, PersistenceErrorCode.Locked)).toBe(true)
      expect(refused?.message).toMatch(
        new RegExp(
          `^session "busy" is held by process ${a.pid} on host-a, which is still running \\(its lease expires in \\d+s unless renewed\\); ` +
            'stop it first, or pass --force if it is not really dsh writing this session$',
        ),
      )
    })

    it('a dead writer on the same host is taken over at once, without waiting for expiry', async () => {
      const config = { url: pg.cluster.url, schema: pg.schema(), leaseMs: 60_000, hostName: 'same-host' }
      const a = await spawnBackendChild(config)
      await a.ok('create', { header: makeHeader('crashed') })
      await a.ok('append', { id: 'crashed', events: new LogBuilder().openTurn(1, 'working').events })
      await a.kill()

      const b = await start(config)
      const repaired = await b.backend().open('crashed')
      expect(repaired.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    })
  },
)
