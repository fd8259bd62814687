// Three processes ("hosts") × ten agents on one database, killed with SIGKILL at
// random moments and restarted: no turn a process saw completed is lost, and every
// session's seqs are contiguous with no duplicates.

import { join } from 'node:path'
import pg from 'pg'
import { afterEach, beforeAll, expect, it } from 'vitest'
import { sessionKey } from '../../../src/persistence/postgres/index.js'
import { LineChild } from '../../support/line-child.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { ensureBuilt, repoRoot } from './processes.js'

const PROCESSES = 3
const AGENTS = 10
const KILLS = 4
const tempDir = useTempDirs('dsh-fleet-')

describePostgres(`postgres fleet: processes killed at random${describeSkipReason()}`, () => {
  const cluster = useCluster()
  const running = new Set<LineChild>()

  beforeAll(() => ensureBuilt(), 180_000)
  afterEach(async () => {
    for (const child of running) await child.kill()
    running.clear()
  })

  it('loses no committed turn and leaves no duplicate or missing seq', async () => {
    const schema = cluster.schema()
    const committed = new Map<string, number>() // session id → highest turn seen completed
    const failures: string[] = []
    const spawnHost = async (slot: number): Promise<LineChild> => {
      const settings = {
        url: cluster.cluster.url,
        schema,
        hostName: `host-${slot}`,
        home: tempDir(),
        prefix: `h${slot}`,
        agents: AGENTS,
        pauseMs: 100,
      }
      const script = join(repoRoot, 'test', 'persistence', 'postgres', 'fleet-worker.mjs')
      const child = await LineChild.spawn(script, [repoRoot, JSON.stringify(settings)])
      child.onNotice((notice) => {
        if (notice.event === 'turn') {
          const id = notice.id as string
          committed.set(id, Math.max(committed.get(id) ?? 0, notice.turn as number))
        } else if (notice.event === 'error') {
          failures.push(String(notice.message))
        }
      })
      running.add(child)
      return child
    }
    const t0 = Date.now()
    const log = (what: string) => process.env.DSH_FLEET_DEBUG && console.log(Date.now() - t0, what)
    const hosts = await Promise.all([...Array(PROCESSES).keys()].map(spawnHost))
    log('spawned')
    for (let kill = 0; kill < KILLS; kill++) {
      await new Promise((resolve) => setTimeout(resolve, 400 + Math.random() * 1200))
      const slot = Math.floor(Math.random() * PROCESSES)
      const victim = hosts[slot]!
      await victim.kill()
      running.delete(victim)
      log(`killed ${slot}`)
      hosts[slot] = await spawnHost(slot)
      log(`respawned ${slot}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 1500))
    for (const child of hosts) {
      await child.kill()
      running.delete(child)
    }
    log('stopped')
    expect(failures).toEqual([])
    expect(committed.size).toBe(PROCESSES * AGENTS)

    const client = new pg.Client({ connectionString: cluster.cluster.url })
    await client.connect()
    try {
      for (const [id, turn] of committed) {
        const key = sessionKey(id)
        const { rows } = await client.query<{ n: string; max: number; distinct: string; count: number }>(
          `SELECT count(*) AS n, max(e.seq) AS max, count(DISTINCT e.seq) AS distinct, s.event_count AS count
             FROM "${schema}".events e JOIN "${schema}".sessions s ON s.key = e.session_key
            WHERE e.session_key = $1 GROUP BY s.event_count`,
          [key],
        )
        const row = rows[0]!
        expect(Number(row.n), id).toBe(row.max + 1)
        expect(Number(row.distinct), id).toBe(row.max + 1)
        expect(row.count, id).toBe(row.max + 1)
        const ends = await client.query<{ turn: number }>(
          `SELECT (data->>'turn')::int AS turn FROM "${schema}".events
            WHERE session_key = $1 AND type = 'turn/end' AND data->>'reason' = 'completed'`,
          [key],
        )
        const completed = new Set(ends.rows.map((end) => end.turn))
        for (let t = 1; t <= turn; t++) {
          // Every turn up to the last one a process saw completed ended completed or was interrupted by a kill.
          if (!completed.has(t)) {
            const any = await client.query(
              `SELECT 1 FROM "${schema}".events WHERE session_key = $1 AND type = 'turn/end' AND (data->>'turn')::int = $2`,
              [key, t],
            )
            expect(any.rowCount, `${id} turn ${t}`).toBe(1)
          }
        }
        expect(completed.has(turn), `${id}: turn ${turn} was reported completed`).toBe(true)
      }
      log('verified')
    } finally {
      await client.end()
    }
  }, 300_000)
})
