// The JSONL log store's edges that the mutation run of log-store.ts found untested: locks
// released at shutdown (a pending session among them), re-creating a pending session,
// an empty append, the title a turn/end line carries (never a fork's seed title), the
// refusals of remove/unlock/open naming this process and the lock file, a log holding
// another id's header, the sessions folder's check, look-ups without a prior list, and the
// per-session queues emptied once idle (never a later operation's queue).

import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type DshError, isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { JsonlLogStore } from '../../../src/persistence/jsonl/log-store.js'
import { newWriterOwner } from '../../../src/persistence/owner.js'
import type { SessionId } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectedError } from '../../support/thrown.js'
import { LogBuilder, makeHeader, plain, startHarness, useJsonlHarnesses } from '../fixtures.js'

const tempDir = useTempDirs('dsh-jsonl-edges-')
const start = useJsonlHarnesses()

function locks(root: string): string[] {
  if (!existsSync(root)) return []
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.lock'))
}

/** The `sessionTitle` each `turn/end` line of the log carries (undefined: none). */
function carriedTitles(path: string): (string | undefined)[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"turn/end"'))
    .map((line) => (JSON.parse(line) as { sessionTitle?: string }).sessionTitle)
}

const title = (text: string) => ({ title: text, source: 'user' as const })

describe('JSONL log store: shutdown, create, empty appends', () => {
  it('disposing the backend releases every writer lock, with a session still pending among them', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await startHarness({ plugin: JsonlSessionBackend, config: { root }, durable: true })
    await harness.backend().create(makeHeader('pending'))
    await harness.backend().create(makeHeader('written'))
    await harness.backend().append('written', new LogBuilder().completedTurn(0, 'x').events)
    expect(locks(root)).toHaveLength(1)
    await harness.dispose()
    expect(locks(root)).toEqual([])
  })

  it('a pending session may be created again (the later header wins); a written one may not, even once its file is gone', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('again', { cwd: '/a' }))
    await harness.backend().create(makeHeader('again', { cwd: '/b' }))
    await harness.backend().append('again', new LogBuilder().completedTurn(0, 'x').events)
    const path = harness.backend().locate(makeHeader('again', { cwd: '/b' }))!.path
    expect((await harness.backend().load('again')).header.cwd).toBe('/b')
    unlinkSync(path)
    const error = await rejectedError<DshError>(harness.backend().create(makeHeader('again', { cwd: '/b' })))
    expect(isDshError(error, PersistenceErrorCode.AlreadyExists)).toBe(true)
  })

  it('an append of no events writes nothing', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('empty'))
    await harness.backend().append('empty', [])
    expect(await harness.backend().exists('empty')).toBe(false)
    expect(existsSync(root)).toBe(false)
    await harness.backend().release('empty') // a pending session holds no file and no lock
  })

  it('the first append refuses when another process stored the id under another cwd meanwhile', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('raced', { cwd: '/a' }))
    const other = await start(root)
    await other.backend().create(makeHeader('raced', { cwd: '/b' }))
    await other.backend().append('raced', new LogBuilder().completedTurn(0, 'b').events)
    const error = await rejectedError<DshError>(
      harness.backend().append('raced', new LogBuilder().completedTurn(0, 'a').events),
    )
    expect(isDshError(error, PersistenceErrorCode.AlreadyExists)).toBe(true)
    expect(existsSync(harness.backend().locate(makeHeader('raced', { cwd: '/a' }))!.path)).toBe(false)
  })
})

describe('JSONL log store: the title a turn/end line carries', () => {
  it("never a fork's seed title; a title given in an earlier batch or before a reopen is carried on", async () => {
    const root = join(tempDir(), 'sessions')
    const fork = (id: SessionId) => makeHeader(id, { parentSession: 'parent', seedLength: 3 })
    let harness = await start(root)
    for (const id of ['titled', 'untitled']) {
      await harness.backend().create(fork(id))
      const log = new LogBuilder()
        .addIgnorable('session/title', title('parent title'))
        .add('user/message', { text: 'parent asks' })
        .add('turn/end', { turn: 0, reason: 'completed' })
        .add('turn/start', { turn: 1 })
        .add('user/message', { text: 'fork asks' })
        .add('turn/end', { turn: 1, reason: 'completed' })
      await harness.backend().append(id, log.events) // the seed and the first turn in one batch
    }
    const path = (id: SessionId) => harness.backend().locate(fork(id))!.path
    expect(carriedTitles(path('titled'))).toEqual([undefined, undefined])

    // A title in one batch, the turn/end in the next.
    await harness
      .backend()
      .append('titled', new LogBuilder(6).addIgnorable('session/title', title('own')).events)
    await harness
      .backend()
      .append(
        'titled',
        new LogBuilder(7).add('turn/start', { turn: 2 }).add('turn/end', { turn: 2, reason: 'completed' })
          .events,
      )
    expect(carriedTitles(path('titled')).at(-1)).toBe('own')

    // Reopened in another process: the title is read back from the log, the seed's left out.
    await harness.dispose()
    harness = await start(root)
    for (const [id, from] of [
      ['titled', 9],
      ['untitled', 6],
    ] as const) {
      await harness.backend().open(id)
      const turn = new LogBuilder(from)
        .add('turn/start', { turn: 3 })
        .add('turn/end', { turn: 3, reason: 'completed' })
      await harness.backend().append(id, turn.events)
    }
    expect(carriedTitles(path('titled')).at(-1)).toBe('own')
    expect(carriedTitles(path('untitled'))).toEqual([undefined, undefined, undefined])
  })
})

describe('JSONL log store: refusals', () => {
  it('remove, unlock and a second open refuse while this process writes, naming it and the lock file', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('mine'))
    await harness.backend().append('mine', new LogBuilder().completedTurn(0, 'x').events)
    const lock = `${harness.backend().locate(makeHeader('mine'))!.path}.lock`
    const removed = await rejectedError<DshError>(harness.backend().remove('mine'))
    expect(removed.message).toBe(
      `session "mine" is being written by this process (lock file ${lock}); it was not removed (stop that process first)`,
    )
    const inThisProcess = `session "mine" is already open for writing in this process (lock file ${lock})`
    expect((await rejectedError<DshError>(harness.backend().unlock('mine'))).message).toBe(inThisProcess)
    expect((await rejectedError<DshError>(harness.backend().unlock('mine', { force: true }))).message).toBe(
      inThisProcess,
    )
    expect((await rejectedError<DshError>(harness.backend().open('mine'))).message).toBe(inThisProcess)
  })

  it('remove refuses a live holder in another process by its own words, naming the lock file', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('held'))
    await harness.backend().append('held', new LogBuilder().completedTurn(0, 'x').events)
    await harness.backend().release('held')
    const path = harness.backend().locate(makeHeader('held'))!.path
    // An old-format lock (no start time) naming a live process cannot be proved stale.
    const { startTime: _startTime, ...old } = newWriterOwner()
    writeFileSync(`${path}.lock`, JSON.stringify({ ...old, pid: process.ppid }))
    const error = await rejectedError<DshError>(harness.backend().remove('held'))
    expect(isDshError(error, PersistenceErrorCode.Locked)).toBe(true)
    expect(error.message).toMatch(
      new RegExp(
        `^session "held" is being written by process ${process.ppid}\\b.* \\(lock file ${path}\\.lock\\); it was not removed`,
      ),
    )
    expect(existsSync(path)).toBe(true)
  })

  it("a log holding another id's header is not that session: load, open, remove and summaries refuse it", async () => {
    const root = join(tempDir(), 'sessions')
    const writer = await start(root)
    for (const id of ['a', 'b']) {
      await writer.backend().create(makeHeader(id))
      await writer.backend().append(id, new LogBuilder().completedTurn(0, id).events)
      await writer.backend().release(id)
    }
    const path = (id: SessionId) => writer.backend().locate(makeHeader(id))!.path
    writeFileSync(path('a'), readFileSync(path('b')))
    const harness = await start(root)
    for (const attempt of [() => harness.backend().open('a'), () => harness.backend().remove('a')]) {
      expect(isDshError(await rejectedError<DshError>(attempt()), PersistenceErrorCode.NotFound)).toBe(true)
    }
    expect(existsSync(path('a'))).toBe(true)
    expect(locks(root)).toEqual([])
    expect(await harness.backend().summariesOf(new Set(['a']))).toEqual([])
  })

  it('removes a log whose header cannot be read, and its lock goes with it', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('broken'))
    await harness.backend().append('broken', new LogBuilder().completedTurn(0, 'x').events)
    await harness.backend().release('broken')
    const path = harness.backend().locate(makeHeader('broken'))!.path
    await writeFile(path, 'not a header\n')
    await harness.backend().remove('broken')
    expect(existsSync(path)).toBe(false)
    expect(locks(root)).toEqual([])
  })

  it('an open that finds the log damaged keeps no lock', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('damaged'))
    await harness
      .backend()
      .append('damaged', new LogBuilder().completedTurn(0, 'x').completedTurn(1, 'y').events)
    await harness.backend().release('damaged')
    const path = harness.backend().locate(makeHeader('damaged'))!.path
    const lines = readFileSync(path, 'utf8').split('\n')
    lines[3] = lines[3]!.slice(0, 10)
    writeFileSync(path, lines.join('\n'))
    const error = await rejectedError<DshError>(harness.backend().open('damaged'))
    expect(isDshError(error, PersistenceErrorCode.Corrupt)).toBe(true)
    expect(locks(root)).toEqual([])
  })

  it('refuses a sessions folder under /dev before creating anything there', async () => {
    const root = join('/dev/shm', `dsh-edges-${process.pid}-${Date.now()}`, 'sessions')
    const logs = new JsonlLogStore(root)
    try {
      await logs.create(makeHeader('x'))
      const error = await rejectedError<DshError>(
        logs.append('x', new LogBuilder().completedTurn(0, 'x').events),
      )
      expect(isDshError(error, PersistenceErrorCode.BadPath)).toBe(true)
      expect(error.message).toBe(
        `the sessions folder ${root} cannot hold sessions: it is inside /dev, a kernel file system`,
      )
      expect(existsSync(root)).toBe(false)
    } finally {
      logs.releaseAllSync()
      await import('node:fs/promises').then(({ rm }) =>
        rm(join(root, '..'), { recursive: true, force: true }),
      )
    }
  })
})

describe('JSONL log store: I/O failures named', () => {
  it('a log that cannot be removed is an I/O error naming it; a session folder that cannot be made too', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    // A folder where the log goes: unlink fails with EISDIR.
    const path = harness.backend().locate(makeHeader('folder'))!.path
    mkdirSync(path, { recursive: true })
    const removed = await rejectedError<DshError>(harness.backend().remove('folder'))
    expect(isDshError(removed, PersistenceErrorCode.Io)).toBe(true)
    expect(removed.message).toMatch(new RegExp(`^cannot remove session file ${path}\\b`))
    expect(existsSync(path)).toBe(true)

    // A file where the session's bucket folder goes.
    const bucket = join(harness.backend().locate(makeHeader('x', { cwd: '/blocked' }))!.path, '..')
    writeFileSync(bucket, '')
    await harness.backend().create(makeHeader('x', { cwd: '/blocked' }))
    const error = await rejectedError<DshError>(
      harness.backend().append('x', new LogBuilder().completedTurn(0, 'x').events),
    )
    expect(isDshError(error, PersistenceErrorCode.Io)).toBe(true)
    expect(error.message).toMatch(new RegExp(`^cannot create session folder ${bucket}\\b`))
  })
})

describe('JSONL log store: look-ups without a list first', () => {
  it('turnAt and summariesOf find the log by its id; an unknown id is not found', async () => {
    const root = join(tempDir(), 'sessions')
    const writer = await start(root)
    const log = new LogBuilder().completedTurn(0, 'x').completedTurn(1, 'y')
    await writer.backend().create(makeHeader('found'))
    await writer.backend().append('found', log.events)
    await writer.backend().release('found')
    const logs = new JsonlLogStore(root)
    expect(await logs.turnAt('found', 10)).toBe(1)
    expect(
      isDshError(await rejectedError<DshError>(logs.turnAt('missing', 0)), PersistenceErrorCode.NotFound),
    ).toBe(true)
    const skipped: string[] = []
    const summaries = await logs.summariesOf(new Set(['found', 'missing']), (file) => skipped.push(file))
    expect(plain(summaries.map((summary) => [summary.header.id, summary.eventCount]))).toEqual([
      ['found', log.events.length],
    ])
    expect(skipped).toEqual([])
  })
})

describe('JSONL log store: the per-session queues', () => {
  // The queues are private; that they empty is a promise about memory (a long-lived harness
  // touches many sessions), read here as layout.test.ts reads its memos.
  type Queued = {
    queues: Map<SessionId, Promise<void>>
    serialized(id: SessionId, task: () => Promise<void>): Promise<void>
  }

  it('drops the queue of every session once its operations have settled', async () => {
    const logs = new JsonlLogStore(join(tempDir(), 'sessions'))
    const { queues } = logs as unknown as Queued
    try {
      const ids = Array.from({ length: 12 }, (_, i) => `idle-${i}`)
      for (const id of ids) await logs.create(makeHeader(id))
      const log = new LogBuilder().completedTurn(0, 'x').completedTurn(1, 'y')
      const work = ids.flatMap((id) => [
        logs.append(id, log.events.slice(0, 3)),
        logs.append(id, log.events.slice(3)),
        logs.load(id),
      ])
      expect(queues.size).toBe(ids.length)
      await Promise.all(work)
      await Promise.all(ids.map((id) => logs.release(id)))
      await expect.poll(() => queues.size).toBe(0)
    } finally {
      logs.releaseAllSync()
    }
  })

  it("an operation that settles leaves a later operation's queue in place: a third still waits for the second", async () => {
    const logs = new JsonlLogStore(join(tempDir(), 'sessions'))
    // Public operations cannot be held at a chosen point without stubbing the file system:
    // these tasks wait on gates the test opens.
    const queue = logs as unknown as Queued
    const order: string[] = []
    let openFirst!: () => void
    let openSecond!: () => void
    const firstGate = new Promise<void>((resolve) => {
      openFirst = resolve
    })
    const secondGate = new Promise<void>((resolve) => {
      openSecond = resolve
    })
    const first = queue.serialized('q', async () => {
      order.push('first')
      await firstGate
      order.push('first done')
    })
    const second = queue.serialized('q', async () => {
      order.push('second')
      await secondGate
      order.push('second done')
    })
    openFirst()
    await first
    // The first's clean-up is a promise continuation: one turn of the event loop runs every
    // continuation queued so far (a drain, not a wait for time).
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual(['first', 'first done', 'second'])
    expect(queue.queues.has('q')).toBe(true)
    const third = queue.serialized('q', async () => {
      order.push('third')
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual(['first', 'first done', 'second'])
    openSecond()
    await Promise.all([second, third])
    expect(order).toEqual(['first', 'first done', 'second', 'second done', 'third'])
    await expect.poll(() => queue.queues.size).toBe(0)
  })
})
