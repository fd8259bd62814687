// PostgreSQL backend benchmarks (issue 16), each against a baseline measured in the
// same run, on the same throwaway server (fsync on), through the same driver:
// durable append vs raw INSERT + COMMIT, load vs a raw SELECT of its rows, list vs a
// raw SELECT of the headers.

import type { Pool } from 'pg'
import { resolvePostgresConfig } from '../src/persistence/postgres/config.js'
import { PostgresSessionStore, sessionKey } from '../src/persistence/postgres/store.js'
import type { SessionEvent, SessionHeader } from '../src/session/types.js'
import { findPostgresBin, startPostgresCluster } from '../test/support/postgres-cluster.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const APPEND_EVENTS = 100_000
const APPEND_BATCH = 100
const LOAD_EVENTS = 100_000
const LIST_SESSIONS = 10_000
const ROUNDS = 3
const T0 = 1_700_000_000_000

function header(id: string): SessionHeader {
  return { version: 1, id, createdAt: T0, delegationDepth: 0, cwd: '/work/bench' }
}

/** The same realistic mix as the JSONL benchmark: turns with messages, tool calls and results. */
function events(count: number): SessionEvent[] {
  const out: SessionEvent[] = []
  for (let seq = 0; seq < count; seq++) {
    const turn = Math.floor(seq / 10) + 1
    const at = seq % 10
    const time = T0 + seq
    if (at === 0) out.push({ seq, type: 'turn/start', time, data: { turn } })
    else if (at === 1)
      out.push({ seq, type: 'user/message', time, data: { text: `please look at file ${seq}` } })
    else if (at === 9) out.push({ seq, type: 'turn/end', time, data: { turn, reason: 'completed' } })
    else if (at % 2 === 0)
      out.push({
        seq,
        type: 'tool/call',
        time,
        data: { callId: `call-${seq}`, name: 'bash', arguments: '{"command":"ls"}' },
      })
    else
      out.push({ seq, type: 'tool/result', time, data: { callId: `call-${seq - 1}`, content: `ok ${seq}` } })
  }
  return out
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await run()
  return performance.now() - start
}

/** The baseline: each batch as one multi-row INSERT inside BEGIN … COMMIT. */
async function rawAppend(pool: Pool, table: string, key: Buffer, all: SessionEvent[]): Promise<void> {
  const client = await pool.connect()
  try {
    for (let start = 0; start < all.length; start += APPEND_BATCH) {
      const batch = all.slice(start, start + APPEND_BATCH)
      const values: unknown[] = []
      const rows = batch.map((event, index) => {
        values.push(
          key,
          event.seq,
          event.type,
          event.time,
          JSON.stringify(event.data),
          event.ignorable === true,
        )
        const at = index * 6
        return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6})`
      })
      await client.query('BEGIN')
      await client.query(
        `INSERT INTO ${table} (session_key, seq, type, time, data, ignorable) VALUES ${rows.join(', ')}`,
        values,
      )
      await client.query('COMMIT')
    }
  } finally {
    client.release()
  }
}

export default async function run(): Promise<BenchRow[]> {
  if (!findPostgresBin()) {
    return [
      {
        name: 'postgres: skipped',
        measured: 'no PostgreSQL server binaries',
        baseline: '-',
        ratio: 0,
        target: '-',
        pass: false,
      },
    ]
  }
  const cluster = await startPostgresCluster({ durable: true })
  const store = new PostgresSessionStore(
    resolvePostgresConfig({ url: cluster.url, schema: 'bench', heartbeatMs: 0, statementTimeoutMs: 600_000 }),
  )
  try {
    const pool = await store.db()
    await pool.query('CREATE TABLE bench.raw_events (LIKE bench.events INCLUDING ALL)')
    const log = events(APPEND_EVENTS)
    const rows: BenchRow[] = []

    // Durable append in checkpoint-sized batches.
    const ours: number[] = []
    const raw: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const id = `append-${round}`
      raw.push(await timed(() => rawAppend(pool, 'bench.raw_events', sessionKey(id), log)))
      ours.push(
        await timed(async () => {
          await store.create(header(id))
          for (let start = 0; start < log.length; start += APPEND_BATCH) {
            await store.append(id, log.slice(start, start + APPEND_BATCH))
          }
          await store.release(id)
        }),
      )
    }
    const oursRate = APPEND_EVENTS / (median(ours) / 1000)
    const rawRate = APPEND_EVENTS / (median(raw) / 1000)
    rows.push({
      name: `postgres durable append ${APPEND_EVENTS / 1000}k events, batches of ${APPEND_BATCH}`,
      measured: `${Math.round(oursRate)} events/s`,
      baseline: `${Math.round(rawRate)} events/s (INSERT … ; COMMIT)`,
      ratio: oursRate / rawRate,
      target: '≥ 0.5× baseline',
      pass: oursRate / rawRate >= 0.5,
    })

    // Load of a 100,000-event session (the first appended one).
    const loadId = 'append-0'
    const loads: number[] = []
    const selects: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      selects.push(
        await timed(() =>
          pool.query(
            'SELECT seq, type, time, data, ignorable FROM bench.events WHERE session_key = $1 ORDER BY seq',
            [sessionKey(loadId)],
          ),
        ),
      )
      loads.push(await timed(() => store.load(loadId)))
    }
    const loadRatio = median(loads) / median(selects)
    rows.push({
      name: `postgres load ${LOAD_EVENTS / 1000}k-event session`,
      measured: `${median(loads).toFixed(0)} ms`,
      baseline: `${median(selects).toFixed(0)} ms (raw SELECT of its rows)`,
      ratio: loadRatio,
      target: '≤ 1.5× baseline',
      pass: loadRatio <= 1.5,
    })

    // Listing 10,000 sessions (headers inserted directly: their events do not matter here).
    await pool.query(
      `INSERT INTO bench.sessions (key, id, header, created_at, cwd, host, title, event_count, last_activity, turns)
       SELECT sha256(convert_to('list-' || n, 'UTF8')), 'list-' || n,
              json_build_object('version', 1, 'id', 'list-' || n, 'createdAt', ${T0} + n, 'cwd', '/work/p' || (n % 50), 'delegationDepth', 0),
              ${T0} + n, '/work/p' || (n % 50), 'bench-host', 'please look at file ' || n, 20, ${T0} + n, 2
         FROM generate_series(1, ${LIST_SESSIONS}) AS n`,
    )
    const lists: number[] = []
    const headers: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      headers.push(await timed(() => pool.query('SELECT header FROM bench.sessions')))
      lists.push(await timed(() => store.list()))
    }
    const listRatio = median(lists) / median(headers)
    rows.push({
      name: `postgres list ${LIST_SESSIONS / 1000}k sessions`,
      measured: `${median(lists).toFixed(0)} ms`,
      baseline: `${median(headers).toFixed(0)} ms (raw SELECT of the headers)`,
      ratio: listRatio,
      target: '≤ 3× baseline',
      pass: listRatio <= 3,
    })
    return rows
  } finally {
    await store.close()
    await cluster.stop()
  }
}
