// Finding past sessions (issue #25): `searchSessions` over JSONL logs against `rg -F -c`
// over the same files, and over SQLite (FTS5) as a median per query; and the resume
// picker's data load (the folder's listing, priced rows) against `sessions list`'s
// listing, in the same run. Sessions are written once through each backend's append.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { isEmptySession, searchSessions } from '../src/history/index.js'
import { JsonlSessionBackend } from '../src/persistence/jsonl/backend.js'
import type { SessionPersistence } from '../src/persistence/persistence.js'
import { SqliteSessionBackend } from '../src/persistence/sqlite/backend.js'
import type { SessionEvent } from '../src/session/types.js'
import { DEFAULT_PRICE_TABLE, formatCost, priceLedger } from '../src/usage/index.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

/** Sessions written; the 10,000 take minutes to write here, so the figure is scaled. */
const SESSIONS = Number(process.env.DSH_BENCH_HISTORY_SESSIONS ?? 2000)
const TURNS = 4
const CWD = '/work/project'
const WORDS = [
  'slug',
  'parser',
  'migration',
  'cache',
  'index',
  'router',
  'schema',
  'token',
  'bucket',
  'queue',
]

function log(index: number): SessionEvent[] {
  const events: Omit<SessionEvent, 'seq'>[] = []
  const time = Date.UTC(2026, 11, 1) + index * 60_000
  const word = WORDS[index % WORDS.length]!
  for (let turn = 1; turn <= TURNS; turn++) {
    events.push({ type: 'turn/start', time, data: { turn } })
    events.push({
      type: 'user/message',
      time,
      data: { text: `please fix the ${word} handling, case ${index}-${turn}` },
    })
    events.push({ type: 'request/config', time, data: { model: 'deepseek-flash', system: 's', tools: [] } })
    const filler = `line ${'of tool output '.repeat(40)}\n`.repeat(8)
    events.push({
      type: 'assistant/message',
      time,
      data: {
        message: {
          content: `Looking at the ${word} code.`,
          toolCalls: [{ id: `c${turn}`, name: 'bash', arguments: '{"command":"ls"}' }],
        },
        usage: { promptTokens: 1000, completionTokens: 50, totalTokens: 1050, cachedTokens: 800 },
      },
    })
    events.push({
      type: 'tool/call',
      time,
      data: { callId: `c${turn}`, name: 'bash', arguments: '{"command":"ls"}' },
    })
    const rare = index === Math.floor(SESSIONS * 0.617) && turn === 2 ? ' zanzibar-needle ' : ''
    events.push({ type: 'tool/result', time, data: { callId: `c${turn}`, content: `${filler}${rare}` } })
    events.push({ type: 'turn/end', time, data: { turn, reason: 'completed' } })
  }
  return events.map((event, seq) => ({ seq, ...event }))
}

async function withBackend<T>(
  plugin: typeof JsonlSessionBackend | typeof SqliteSessionBackend,
  config: object,
  use: (backend: SessionPersistence) => Promise<T>,
): Promise<T> {
  const ctx = new Context()
  const fiber = ctx.plugin(plugin as never, config as never)
  await fiber.await()
  try {
    return await use(ctx.get('sessionPersistence')!)
  } finally {
    await fiber.dispose()
  }
}

async function fill(backend: SessionPersistence): Promise<void> {
  for (let index = 0; index < SESSIONS; index++) {
    const id = `bench-${String(index).padStart(6, '0')}`
    await backend.create({ version: 1, id, createdAt: Date.UTC(2026, 11, 1), cwd: CWD, delegationDepth: 0 })
    await backend.append(id, log(index))
    await backend.release(id)
  }
}

function time<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now()
  return work().then(() => performance.now() - started)
}

export default async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-history-'))
  try {
    const rows: BenchRow[] = []
    const root = join(dir, 'sessions')
    await withBackend(JsonlSessionBackend, { root }, async (backend) => {
      await fill(backend)
      const rg = spawnSync('rg', ['--version']).status === 0
      const ROUNDS = 5
      const ours: number[] = []
      const base: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        if (rg) base.push(await time(async () => spawnSync('rg', ['-F', '-c', 'zanzibar-needle', root])))
        ours.push(await time(() => searchSessions(backend, { query: 'zanzibar-needle', cwd: CWD })))
      }
      const found = await searchSessions(backend, { query: 'zanzibar-needle', cwd: CWD })
      if (found.length !== 1) throw new Error(`the JSONL search found ${found.length} sessions, not 1`)
      const size = spawnSync('du', ['-sm', root], { encoding: 'utf8' }).stdout.split('\t')[0]
      const ratio = rg ? median(ours) / median(base) : Number.NaN
      rows.push({
        name: `JSONL search, ${SESSIONS} sessions (${size} MB), a rare word`,
        measured: `${median(ours).toFixed(1)} ms (RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB)`,
        baseline: rg ? `rg -F -c over the same files: ${median(base).toFixed(1)} ms` : 'rg not installed',
        ratio,
        target: '≤ 1.5×, RSS ≤ 100 MB',
        pass: rg && ratio <= 1.5 && process.memoryUsage().rss <= 100 * 2 ** 20,
      })
      // The picker's rows against the listing `sessions list` starts from.
      const listing: number[] = []
      const picker: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        listing.push(await time(() => backend.list()))
        picker.push(
          await time(async () => {
            const summaries = await backend.list()
            summaries
              .filter((summary) => summary.header.cwd === CWD && !isEmptySession(summary))
              .sort((a, b) => b.lastActivity - a.lastActivity)
              .map((summary) =>
                formatCost(priceLedger(summary.usage, DEFAULT_PRICE_TABLE)?.cost ?? null, 'USD'),
              )
          }),
        )
      }
      const pickerRatio = median(picker) / median(listing)
      rows.push({
        name: `resume picker's rows, ${SESSIONS} sessions (JSONL)`,
        measured: `${median(picker).toFixed(1)} ms`,
        baseline: `the listing (sessions list's source): ${median(listing).toFixed(1)} ms`,
        ratio: pickerRatio,
        target: '≤ 2×',
        pass: pickerRatio <= 2,
      })
    })
    await withBackend(SqliteSessionBackend, { file: join(dir, 'sessions.db') }, async (backend) => {
      await fill(backend)
      const times: number[] = []
      for (const word of [...WORDS, 'zanzibar-needle']) {
        times.push(await time(() => searchSessions(backend, { query: word, cwd: CWD })))
      }
      rows.push({
        name: `SQLite search (FTS5), ${SESSIONS} sessions, 11 queries`,
        measured: `median ${median(times).toFixed(1)} ms`,
        baseline: '50 ms (the target itself)',
        ratio: median(times) / 50,
        target: '≤ 50 ms median',
        pass: median(times) <= 50,
      })
    })
    return rows
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
