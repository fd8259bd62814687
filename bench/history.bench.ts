// Finding past sessions (issue #25): `searchSessions` over JSONL logs against `rg -F -c`
// over the same files (the search's peak RSS measured in a process of its own), and
// over SQLite (FTS5) and PostgreSQL (tsvector, a throwaway server) as a median per query;
// and the resume picker: `dsh -r` in a pseudo-terminal until its first row is painted,
// against `dsh sessions list` until it exits, over the same JSONL sessions in the same run.
// Sessions are written once through each backend's append.

import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { spawn as spawnPty } from '@lydell/node-pty'
import { Context } from 'cordis'
import { searchSessions } from '../src/history/index.js'
import { JsonlSessionBackend } from '../src/persistence/jsonl/backend.js'
import type { SessionPersistence } from '../src/persistence/persistence.js'
import { PostgresSessionBackend } from '../src/persistence/postgres/backend.js'
import { SqliteSessionBackend } from '../src/persistence/sqlite/backend.js'
import type { SessionEvent } from '../src/session/types.js'
import { findPostgresBin, startPostgresCluster } from '../test/support/postgres-cluster.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

/** Sessions written; the 10,000 take minutes to write here, so the figure is scaled. */
const SESSIONS = Number(process.env.DSH_BENCH_HISTORY_SESSIONS ?? 2000)
/** Turns per session: 4 by default; more shows what long sessions cost (DSH_BENCH_HISTORY_TURNS). */
const TURNS = Number(process.env.DSH_BENCH_HISTORY_TURNS ?? 4)
/**
 * Lines of tool output per turn: 8 gives about 43 KB per session (431 MB at 10,000); 22
 * gives the 10,000 sessions / 1 GB (DSH_BENCH_HISTORY_OUTPUT_LINES=22).
 */
const OUTPUT_LINES = Number(process.env.DSH_BENCH_HISTORY_OUTPUT_LINES ?? 8)
/** The sessions' folder: a real one, since `dsh -r` runs in it and lists that folder's sessions. */
const CWD = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-history-project-')))
/** The installed bin (npm run bench builds it). */
const CLI = fileURLToPath(new URL('../bundle/main.js', import.meta.url))
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
    const filler = `line ${'of tool output '.repeat(40)}\n`.repeat(OUTPUT_LINES)
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
  plugin: typeof JsonlSessionBackend | typeof SqliteSessionBackend | typeof PostgresSessionBackend,
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

/**
 * The peak RSS of a process that only opens the logs and runs the search once, MB:
 * the search's own memory, not the writing of the sessions before it.
 */
function searchPeakRss(root: string, query: string): number {
  const script = `
    import { Context } from ${JSON.stringify(import.meta.resolve('cordis'))}
    import { JsonlSessionBackend } from ${JSON.stringify(new URL('../src/persistence/jsonl/backend.js', import.meta.url).href)}
    import { searchSessions } from ${JSON.stringify(new URL('../src/history/index.js', import.meta.url).href)}
    const ctx = new Context()
    const fiber = ctx.plugin(JsonlSessionBackend, { root: ${JSON.stringify(root)} })
    await fiber.await()
    const found = await searchSessions(ctx.get('sessionPersistence'), { query: ${JSON.stringify(query)}, cwd: ${JSON.stringify(CWD)} })
    await fiber.dispose()
    process.stdout.write(JSON.stringify({ found: found.length, maxRss: process.resourceUsage().maxRSS }))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  const { found, maxRss } = JSON.parse(out) as { found: number; maxRss: number }
  if (found !== 1) throw new Error(`the JSONL search found ${found} sessions, not 1`)
  return maxRss / 1024
}

/** The median time of the history service's search over 11 queries (10 common words, a rare one). */
async function medianSearch(backend: SessionPersistence): Promise<number> {
  const times: number[] = []
  for (const word of [...WORDS, 'zanzibar-needle']) {
    times.push(await time(() => searchSessions(backend, { query: word, cwd: CWD })))
  }
  const found = await searchSessions(backend, { query: 'zanzibar-needle', cwd: CWD })
  if (found.length !== 1) throw new Error(`the search found ${found.length} sessions, not 1`)
  return median(times)
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
      const rss = searchPeakRss(root, 'zanzibar-needle')
      rows.push({
        name: `JSONL search, ${SESSIONS} sessions (${size} MB), a rare word`,
        measured: `${median(ours).toFixed(1)} ms (peak RSS of a search process ${Math.round(rss)} MB)`,
        baseline: rg ? `rg -F -c over the same files: ${median(base).toFixed(1)} ms` : 'rg not installed',
        ratio,
        target: '≤ 1.5×, RSS ≤ 100 MB',
        pass: rg && ratio <= 1.5 && rss <= 100,
      })
      rows.push(await pickerRow(dir))
    })
    await withBackend(SqliteSessionBackend, { file: join(dir, 'sessions.db') }, async (backend) => {
      await fill(backend)
      rows.push(
        searchRow(`SQLite search (FTS5), ${SESSIONS} sessions, 11 queries`, await medianSearch(backend)),
      )
    })
    rows.push(await postgresRow())
    return rows
  } finally {
    rmSync(dir, { recursive: true, force: true })
    rmSync(CWD, { recursive: true, force: true })
  }
}

/**
 * `dsh -r` (the resume picker over this folder's sessions, in a 120×40 pseudo-terminal) from
 * spawn until the newest session's title is painted, against `dsh sessions list` from spawn
 * until it has printed every session and exited, alternating, over the sessions under `home`.
 */
async function pickerRow(home: string): Promise<BenchRow> {
  const env = { ...process.env, DSH_HOME: home, DEEPSEEK_API_KEY: 'bench-key', NO_COLOR: '1' }
  // The newest session (the last written) is the picker's first row; its title is its first prompt.
  const newest = SESSIONS - 1
  const marker = `case ${newest}-1`
  const listing: number[] = []
  const picker: number[] = []
  for (let round = 0; round < 6; round++) {
    const list = await listTime(env)
    const open = await pickerTime(env, marker)
    if (round > 0) {
      // The first round warms the page cache and the bin's code cache.
      listing.push(list)
      picker.push(open)
    }
  }
  const ratio = median(picker) / median(listing)
  return {
    name: `dsh -r: the resume picker's first row, ${SESSIONS} sessions (JSONL)`,
    measured: `${median(picker).toFixed(1)} ms`,
    baseline: `dsh sessions list to its exit: ${median(listing).toFixed(1)} ms`,
    ratio,
    target: '≤ 2×',
    pass: ratio <= 2,
  }
}

async function listTime(env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, [CLI, 'sessions', 'list'], {
    cwd: CWD,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let printed = false
  child.stdout.on('data', () => {
    printed = true
  })
  child.stderr.resume()
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0 || !printed)
    throw new Error(`dsh sessions list exited ${code}${printed ? '' : ' without output'}`)
  return performance.now() - started
}

async function pickerTime(env: NodeJS.ProcessEnv, marker: string): Promise<number> {
  const started = performance.now()
  const term = spawnPty(process.execPath, [CLI, '-r'], {
    cwd: CWD,
    env,
    cols: 120,
    rows: 40,
    name: 'xterm-256color',
  })
  let painted = ''
  let screen = ''
  try {
    await new Promise<void>((resolve, reject) => {
      term.onData((data) => {
        // Escape sequences (colour, cursor) may sit between the words, or span two chunks.
        painted += data
        screen = stripVTControlCharacters(painted)
        if (screen.includes(marker)) resolve()
      })
      term.onExit(({ exitCode }) =>
        reject(
          new Error(`dsh -r exited ${exitCode} before its picker showed ${marker}: ${screen.slice(-400)}`),
        ),
      )
    })
    return performance.now() - started
  } finally {
    term.kill()
  }
}

function searchRow(name: string, ms: number): BenchRow {
  return {
    name,
    measured: `median ${ms.toFixed(1)} ms`,
    baseline: '50 ms (the target itself)',
    ratio: ms / 50,
    target: '≤ 50 ms median',
    pass: ms <= 50,
  }
}

/** The same sessions in PostgreSQL, on a throwaway server of its own (fsync off: the search is measured, not the writes). */
async function postgresRow(): Promise<BenchRow> {
  const name = `PostgreSQL search (tsvector), ${SESSIONS} sessions, 11 queries`
  if (!findPostgresBin()) {
    console.log('history bench: PostgreSQL skipped, no server binaries installed')
    return {
      name,
      measured: 'skipped: no PostgreSQL binaries',
      baseline: '-',
      ratio: 0,
      target: '≤ 50 ms median',
      pass: false,
    }
  }
  const cluster = await startPostgresCluster()
  try {
    const config = { url: cluster.url, schema: 'bench', heartbeatMs: 0, statementTimeoutMs: 600_000 }
    return await withBackend(PostgresSessionBackend, config, async (backend) => {
      await fill(backend)
      return searchRow(name, await medianSearch(backend))
    })
  } finally {
    await cluster.stop()
  }
}
