// SQLite-specific behaviour: no dedicated file, WAL with synchronous=FULL, lazy
// rows, one transaction per append, the database closed on dispose.

import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { SqliteSessionBackend } from '../../../src/persistence/sqlite/backend.js'
import { ledgerOf } from '../../../src/usage/ledger.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { LogBuilder, makeHeader, startHarness } from '../fixtures.js'

const tempDir = useTempDirs('dsh-sqlite-')

async function start(file: string) {
  return startHarness({ plugin: SqliteSessionBackend, config: { file }, durable: true })
}

describe('SQLite backend', () => {
  it('has no dedicated file per session: locate is undefined', async () => {
    const harness = await start(join(tempDir(), 'sessions.db'))
    expect(harness.backend().locate(makeHeader('any', { cwd: '/w' }))).toBeUndefined()
    await harness.dispose()
  })

  it('opens the database on first use with WAL and synchronous=FULL, mode 0600, in a 0700 folder', async () => {
    const file = join(tempDir(), 'home', 'sessions.db')
    const harness = await start(file)
    expect(existsSync(file)).toBe(false)
    await harness.backend().create(makeHeader('s'))
    await harness.backend().append('s', new LogBuilder().completedTurn(0, 'x').events)
    // synchronous is per connection: ask the one the backend has just written with.
    expect((harness.backend() as SqliteSessionBackend).durability()).toEqual({
      journalMode: 'wal',
      synchronous: 2,
    })
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700)
    await harness.dispose()

    const db = new Database(file, { readonly: true })
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.prepare('SELECT id, event_count, title FROM sessions').all()).toEqual([
      { id: 's', event_count: 9, title: 'x' },
    ])
    expect(db.prepare('SELECT count(*) AS n FROM events WHERE session_id = ?').get('s')).toEqual({ n: 9 })
    db.close()
  })

  it('adds the turns column to a database made before it existed, counting stored turns', async () => {
    const file = join(tempDir(), 'old.db')
    const harness = await start(file)
    await harness.backend().create(makeHeader('old'))
    await harness.backend().append('old', new LogBuilder().completedTurn(1, 'a').completedTurn(2, 'b').events)
    await harness.dispose()
    const db = new Database(file)
    db.exec('ALTER TABLE sessions DROP COLUMN turns')
    db.close()

    const reopened = await start(file)
    expect((await reopened.backend().list()).map((summary) => summary.turns)).toEqual([2])
    await reopened.dispose()
  })

  it('adds the outcome column to a database made before it existed, from the last turn', async () => {
    const file = join(tempDir(), 'old.db')
    const harness = await start(file)
    await harness.backend().create(makeHeader('closed'))
    await harness.backend().append('closed', new LogBuilder().completedTurn(1, 'a').events)
    await harness.backend().create(makeHeader('open'))
    await harness.backend().append('open', new LogBuilder().completedTurn(1, 'a').openTurn(2, 'b').events)
    await harness.dispose()
    const db = new Database(file)
    db.exec('ALTER TABLE sessions DROP COLUMN outcome')
    db.close()

    const reopened = await start(file)
    const outcomes = (await reopened.backend().list()).map((summary) => [summary.header.id, summary.outcome])
    expect(outcomes.sort()).toEqual([
      ['closed', 'completed'],
      ['open', 'open'],
    ])
    await reopened.dispose()
  })

  it("adds the usage columns to a database made before them, with every session's ledger", async () => {
    const file = join(tempDir(), 'old.db')
    const harness = await start(file)
    const log = new LogBuilder()
      .paidTurn(1, 'a', 'deepseek-flash', 100)
      .paidTurn(2, 'b', 'deepseek-v4-pro', 300)
    await harness.backend().create(makeHeader('old'))
    await harness.backend().append('old', log.events)
    await harness.dispose()
    const db = new Database(file)
    db.exec('ALTER TABLE sessions DROP COLUMN usage; ALTER TABLE sessions DROP COLUMN usage_events')
    db.close()

    const reopened = await start(file)
    expect((await reopened.backend().list()).map((summary) => summary.usage)).toEqual([ledgerOf(log.events)])
    await reopened.dispose()
    const stored = new Database(file)
    expect(stored.prepare('SELECT usage, usage_events FROM sessions').get()).toEqual({
      usage: JSON.stringify(ledgerOf(log.events)),
      usage_events: log.events.length,
    })
    stored.close()
  })

  it('catches a ledger up with events a writer without ledgers added, on read and on the next append', async () => {
    const file = join(tempDir(), 'behind.db')
    const harness = await start(file)
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
    const first = log.events.slice(0, 9)
    await harness.backend().create(makeHeader('behind'))
    await harness.backend().append('behind', log.events)
    await harness.backend().release('behind')
    // As an older dsh leaves it: the second turn's events are not in the ledger.
    const db = new Database(file)
    db.prepare('UPDATE sessions SET usage = ?, usage_events = ?').run(
      JSON.stringify(ledgerOf(first)),
      first.length,
    )
    expect((await harness.backend().list())[0]!.usage).toEqual(ledgerOf(log.events))
    // A ledger that cannot be read is folded again from every event.
    db.prepare("UPDATE sessions SET usage = '{not json'").run()
    expect((await harness.backend().list())[0]!.usage).toEqual(ledgerOf(log.events))
    db.prepare('UPDATE sessions SET usage = ?, usage_events = ?').run(
      JSON.stringify(ledgerOf(first)),
      first.length,
    )
    const more = new LogBuilder(log.events.length).paidTurn(3, 'c', 'deepseek-flash', 50)
    await harness.backend().append('behind', more.events)
    const all = [...log.events, ...more.events]
    expect(db.prepare('SELECT usage, usage_events FROM sessions').get()).toEqual({
      usage: JSON.stringify(ledgerOf(all)),
      usage_events: all.length,
    })
    db.close()
    await harness.dispose()
  })

  it('keeps a refused append out entirely (one transaction per append)', async () => {
    const file = join(tempDir(), 'sessions.db')
    const harness = await start(file)
    await harness.backend().create(makeHeader('tx'))
    const log = new LogBuilder().completedTurn(0, 'x')
    await harness.backend().append('tx', log.events.slice(0, 2))
    const broken = [log.events[2]!, log.events[4]!]
    const error = await harness
      .backend()
      .append('tx', broken)
      .catch((reason: unknown) => reason)
    expect(isDshError(error, PersistenceErrorCode.SeqMismatch)).toBe(true)
    expect((await harness.backend().list())[0]!.eventCount).toBe(2)
    await harness.dispose()
  })

  it('does not close the open turn of a session it is writing; after release, open does', async () => {
    const harness = await start(join(tempDir(), 'sessions.db'))
    const log = new LogBuilder().completedTurn(0, 'x').openTurn(1, 'live')
    await harness.backend().create(makeHeader('live'))
    await harness.backend().append('live', log.events)
    expect((await harness.backend().load('live')).events).toHaveLength(log.events.length)
    const refused = await harness
      .backend()
      .open('live')
      .catch((reason: unknown) => reason)
    expect(isDshError(refused, PersistenceErrorCode.Locked)).toBe(true)
    await harness.backend().release('live')
    expect((await harness.backend().load('live')).events).toHaveLength(log.events.length)
    expect((await harness.backend().open('live')).events.at(-1)!.type).toBe('turn/end')
    await harness.dispose()
  })

  it('closes the database when the plugin is disposed', async () => {
    const file = join(tempDir(), 'sessions.db')
    const harness = await start(file)
    await harness.backend().create(makeHeader('c'))
    await harness.backend().append('c', new LogBuilder().add('turn/start', { turn: 0 }).events)
    await harness.dispose()
    // A closed better-sqlite3 handle is reopened lazily by the backend, so observe the file:
    // with the connection closed, SQLite checkpoints and removes the WAL file.
    expect(existsSync(`${file}-wal`)).toBe(false)
  })
})
