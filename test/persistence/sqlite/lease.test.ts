// The SQLite writer lease with a real second process: a reader never writes and
// never breaks a live writer; open is refused while the holder lives and takes over
// once it is provably gone (killed, or its pid reused); unlock; release at close.

import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { newWriterOwner, processStartTime } from '../../../src/persistence/owner.js'
import { SqliteSessionBackend } from '../../../src/persistence/sqlite/backend.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectedError } from '../../support/thrown.js'
import { type Harness, LogBuilder, makeHeader, plain, startHarness } from '../fixtures.js'
import { ChildWriter, ensureBuilt } from '../jsonl/child-writer.js'

const tempDir = useTempDirs('dsh-sqlite-lease-')
const running: Harness[] = []
const children: ChildWriter[] = []

beforeAll(() => ensureBuilt(), 180_000)

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill()
  for (const harness of running.splice(0).reverse()) await harness.dispose()
})

async function start(file: string): Promise<Harness> {
  const harness = await startHarness({ plugin: SqliteSessionBackend, config: { file }, durable: true })
  running.push(harness)
  return harness
}

async function spawnChild(file: string): Promise<ChildWriter> {
  const child = await ChildWriter.spawn(file, { backend: 'sqlite' })
  children.push(child)
  return child
}

function eventCount(file: string, id: string): number {
  const db = new Database(file, { readonly: true })
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM events WHERE session_id = ?').get(id) as { n: number }).n
  } finally {
    db.close()
  }
}

function writeLease(file: string, id: string, owner: object): void {
  const db = new Database(file)
  try {
    db.prepare('INSERT OR REPLACE INTO leases (session_id, nonce, owner) VALUES (?, ?, ?)').run(
      id,
      'planted',
      JSON.stringify({ ...owner, nonce: 'planted' }),
    )
  } finally {
    db.close()
  }
}

describe('SQLite writer lease', () => {
  it('a reader never repairs a session another process is writing; that writer keeps going', async () => {
    const file = join(tempDir(), 'sessions.db')
    const child = await spawnChild(file)
    const open = new LogBuilder().completedTurn(0, 'x').openTurn(1, 'running')
    await child.ok('create', { header: makeHeader('busy') })
    await child.ok('append', { id: 'busy', events: open.events })

    const harness = await start(file)
    for (let i = 0; i < 3; i++) {
      expect(plain((await harness.backend().load('busy')).events)).toEqual(open.events)
      await harness.backend().list()
      await harness.backend().exists('busy')
    }
    expect(eventCount(file, 'busy')).toBe(open.events.length)

    const refused = await rejectedError(harness.backend().open('busy'))
    expect(isDshError(refused, PersistenceErrorCode.Locked)).toBe(true)
    expect(refused.message).toContain(`process ${child.pid}`)
    expect(refused.message).toContain('dsh sessions unlock busy')
    const appendRefused = await rejectedError(
      harness
        .backend()
        .append('busy', new LogBuilder(open.events.length).add('turn/start', { turn: 9 }).events),
    )
    expect(isDshError(appendRefused, PersistenceErrorCode.Locked)).toBe(true)
    expect(eventCount(file, 'busy')).toBe(open.events.length)

    // The running writer finishes its turn undisturbed.
    const rest = new LogBuilder(open.events.length)
      .add('tool/result', { callId: 'b1', content: 'ok' })
      .add('step/end', { turn: 1, step: 0 })
      .add('turn/end', { turn: 1, reason: 'completed' })
    await child.ok('append', { id: 'busy', events: rest.events })
    await child.exit()

    // Released at close: now it opens, with nothing to repair.
    const opened = await harness.backend().open('busy')
    expect(plain(opened.events)).toEqual([...open.events, ...rest.events])
  })

  it('takes over the lease of a writer that was killed, then repairs its open turn', async () => {
    const file = join(tempDir(), 'sessions.db')
    const child = await spawnChild(file)
    const log = new LogBuilder().completedTurn(0, 'x').openTurn(1, 'killed')
    await child.ok('create', { header: makeHeader('orphan') })
    await child.ok('append', { id: 'orphan', events: log.events })
    await child.kill()

    const harness = await start(file)
    expect(plain((await harness.backend().load('orphan')).events)).toEqual(log.events)
    const opened = await harness.backend().open('orphan')
    expect(opened.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    expect(eventCount(file, 'orphan')).toBe(opened.events.length)
  })

  it('treats a lease whose pid now belongs to a later process as stale; a live holder is refused', async () => {
    const file = join(tempDir(), 'sessions.db')
    const harness = await start(file)
    await harness.backend().create(makeHeader('reused'))
    await harness.backend().append('reused', new LogBuilder().completedTurn(0, 'x').events)
    await harness.backend().release('reused')

    // The parent of this test runner is alive; a record with another start time is not it.
    const livePid = process.ppid
    const start_ = processStartTime(livePid)
    expect(start_, 'this test needs /proc').toBeDefined()
    writeLease(file, 'reused', { ...newWriterOwner(), pid: livePid, startTime: `${Number(start_) + 1}` })
    await harness.backend().open('reused')
    await harness.backend().release('reused')

    // The same pid with its real start time: alive, refused; unlock refuses too, --force breaks it.
    writeLease(file, 'reused', { ...newWriterOwner(), pid: livePid, startTime: start_ })
    const refused = await rejectedError(harness.backend().open('reused'))
    expect(isDshError(refused, PersistenceErrorCode.Locked)).toBe(true)
    expect(refused.message).toContain(`process ${livePid}`)
    const unlockRefused = await rejectedError(harness.backend().unlock('reused'))
    expect(isDshError(unlockRefused, PersistenceErrorCode.Locked)).toBe(true)
    // The refusal of unlock itself points at --force, not at the command just run.
    expect(unlockRefused.message).toMatch(
      new RegExp(
        `^session "reused" is held by process ${livePid} on .*, which is still running \\(writer lease in ${file}\\); ` +
          'stop it first, or pass --force if it is not really dsh writing this session$',
      ),
    )
    expect(await harness.backend().unlock('reused', { force: true })).toMatchObject({ pid: livePid })
    expect(await harness.backend().unlock('reused')).toBeUndefined()
    await harness.backend().open('reused')
  })

  it('two backends in one process: the second cannot open what the first writes; a stolen lease stops writes', async () => {
    const file = join(tempDir(), 'sessions.db')
    const first = await start(file)
    const second = await start(file)
    const log = new LogBuilder().completedTurn(0, 'x')
    await first.backend().create(makeHeader('shared'))
    await first.backend().append('shared', log.events)
    const refused = await rejectedError(second.backend().open('shared'))
    expect(refused.message).toContain('this process')
    // Unlock never breaks a lease of this very process, even forced, and does not offer --force.
    const ours = await rejectedError(second.backend().unlock('shared', { force: true }))
    expect(isDshError(ours, PersistenceErrorCode.Locked)).toBe(true)
    expect(ours.message).toMatch(/^session "shared" is held by this process on .*; stop it first$/)

    writeLease(file, 'shared', { ...newWriterOwner(), pid: 999_999_999 }) // a pid that cannot exist
    const more = new LogBuilder(log.events.length).add('turn/start', { turn: 1 })
    const stolen = await rejectedError(first.backend().append('shared', more.events))
    expect(isDshError(stolen, PersistenceErrorCode.Locked)).toBe(true)
    expect(stolen.message).toMatch(/writer lease was taken by process 999999999/)
    expect(eventCount(file, 'shared')).toBe(log.events.length)
  })

  it('releases the lease when the session is closed and when the backend unloads', async () => {
    const file = join(tempDir(), 'sessions.db')
    const harness = await start(file)
    const session = await harness.store().create({ id: 'closing' })
    session.append('turn/start', { turn: 0 })
    await harness.store().flush(session)
    const leases = () => {
      const db = new Database(file, { readonly: true })
      try {
        return db.prepare('SELECT session_id FROM leases').all()
      } finally {
        db.close()
      }
    }
    expect(leases()).toEqual([{ session_id: 'closing' }])
    await harness.store().close(session)
    expect(leases()).toEqual([])
    await harness.store().open('closing')
    expect(leases()).toEqual([{ session_id: 'closing' }])
    await harness.dispose()
    running.splice(0)
    expect(leases()).toEqual([])
  })
})
