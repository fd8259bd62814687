// copySessions (`dsh sessions migrate`) with a session that has a header and no events: JSONL
// keeps it, SQLite stores no session until its first event, so copying it counted it as
// copied at every run. It is reported as empty instead, and a second run copies nothing.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { copySessions } from '../../src/persistence/copy.js'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import { useTempDirs } from '../support/temp-dir.js'
import { LogBuilder, makeHeader, startHarness } from './fixtures.js'

const makeDir = useTempDirs('dsh-copy-')

it('an empty session is reported empty, not copied again at every run', async () => {
  const jsonl = await startHarness({
    plugin: JsonlSessionBackend,
    config: { root: join(makeDir(), 'sessions') },
    durable: true,
  })
  const sqlite = await startHarness({
    plugin: SqliteSessionBackend,
    config: { file: join(makeDir(), 'sessions.db') },
    durable: true,
  })
  try {
    const from = jsonl.backend()
    // A log with its header line only (a session given up before its first event).
    const header = makeHeader('empty')
    await from.create(header)
    await from.append('empty', new LogBuilder().completedTurn(0, 'gone').events)
    await from.release('empty')
    const path = from.locate(header)!.path
    writeFileSync(path, `${readFileSync(path, 'utf8').split('\n')[0]}\n`)
    expect((await from.load('empty')).events).toEqual([])
    await from.create(makeHeader('full', { createdAt: 2 }))
    await from.append('full', new LogBuilder().completedTurn(0, 'hi').events)
    await from.release('full')

    const first = await copySessions(from, sqlite.backend())
    expect(first).toMatchObject({ copied: 1, present: 0, empty: 1, problems: 0 })
    const second = await copySessions(from, sqlite.backend())
    expect(second).toMatchObject({ copied: 0, present: 1, empty: 1, problems: 0 })
  } finally {
    await sqlite.dispose()
    await jsonl.dispose()
  }
})
