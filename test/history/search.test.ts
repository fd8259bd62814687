// The search contract on the embedded backends (memory, JSONL through ripgrep and
// through the streaming reader, SQLite), and their results compared whole.

import { appendFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { searchSessions } from '../../src/history/index.js'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { findRipgrep } from '../../src/persistence/jsonl/search.js'
import { MemorySessionBackend } from '../../src/persistence/memory/memory-backend.js'
import type { SessionPersistence } from '../../src/persistence/persistence.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import { type BackendPlugin, type Harness, startHarness } from '../persistence/fixtures.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'
import { allResults, NOW, runSearchContract, storeCorpus } from './search-contract.js'

const tempDir = useTempDirs('dsh-search-')
const running: Harness[] = []
afterEach(async () => {
  for (const harness of running.splice(0).reverse()) await harness.dispose()
})

async function start<C>(plugin: BackendPlugin<C>, config: C): Promise<SessionPersistence> {
  const harness = await startHarness({ plugin, config, durable: true })
  running.push(harness)
  return harness.backend()
}

const backends: [string, () => Promise<SessionPersistence>][] = [
  ['memory', () => start(MemorySessionBackend, undefined)],
  ['jsonl (ripgrep)', () => start(JsonlSessionBackend, { root: tempDir(), ripgrep: findRipgrep() ?? 'rg' })],
  ['jsonl (streamed)', () => start(JsonlSessionBackend, { root: tempDir(), ripgrep: false as const })],
  ['sqlite', () => start(SqliteSessionBackend, { file: join(tempDir(), 'sessions.db') })],
]

for (const [name, open] of backends) {
  describe(`search contract: ${name}`, () => runSearchContract(open))
}

itRequires(findRipgrep() !== undefined, 'ripgrep (rg)')(
  'every embedded backend gives the same results, field by field',
  async () => {
    const answers: unknown[][] = []
    for (const [, open] of backends) {
      const backend = await open()
      await storeCorpus(backend)
      answers.push(await allResults(backend))
    }
    for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0])
  },
)

describe('search over damaged logs', () => {
  for (const ripgrep of [true, false]) {
    it(`skips a half-written log with a warning naming it (${ripgrep ? 'ripgrep' : 'streamed'})`, async () => {
      const root = tempDir()
      const backend = await start(JsonlSessionBackend, {
        root,
        ripgrep: ripgrep ? (findRipgrep() ?? 'rg') : false,
      })
      await storeCorpus(backend)
      const bucket = readdirSync(root).find((name) => readdirSync(join(root, name)).includes('s-docs.jsonl'))!
      const file = join(root, bucket, 's-docs.jsonl')
      appendFileSync(file, '{"seq":4,"type":"user/message","time":1,"data":{"text":"slug ha')
      const skipped: string[] = []
      const results = await searchSessions(backend, {
        query: 'slug',
        now: NOW,
        onSkipped: (where, reason) => skipped.push(`${where}: ${reason}`),
      })
      expect(results.map((result) => result.sessionId)).toEqual(['s-slug'])
      expect(skipped).toHaveLength(1)
      expect(skipped[0]).toContain(file)
    })
  }
})

describe('the SQLite search index migration', () => {
  for (const v1 of [false, true])
    it(`indexes the sessions of a database made before it${v1 ? ' (or before version 2)' : ''}, once`, async () => {
      const file = join(tempDir(), 'sessions.db')
      const first = await start(SqliteSessionBackend, { file })
      await storeCorpus(first)
      const expected = await allResults(first)
      await running.pop()!.dispose()
      // Back to a database from before the index.
      const Database = (await import('better-sqlite3')).default
      const db = new Database(file)
      db.exec(
        "DROP TABLE search_index; DROP TABLE search_sessions; DELETE FROM dsh_migrations WHERE name = 'history-search-fts5-v2'",
      )
      // Or with version 1's index (no bounds in its rowids), which is rebuilt.
      if (v1) {
        db.exec(`CREATE VIRTUAL TABLE search_index USING fts5(text, kind UNINDEXED, session_id UNINDEXED, seq UNINDEXED);
        INSERT INTO dsh_migrations (name, applied_at) VALUES ('history-search-fts5-v1', 1)`)
      }
      db.close()
      const upgraded = await start(SqliteSessionBackend, { file })
      expect(await allResults(upgraded)).toEqual(expected)
      const check = new Database(file, { readonly: true })
      expect(check.prepare('SELECT count(*) AS n FROM search_index').get()).toEqual({ n: 105 })
      check.close()
    })
})
