// The JSONL backend under a watch on `node:fs` and `node:fs/promises` (every function
// passes through to the real one and is recorded): `locate()` makes no file-system call at
// all, a writer whose append failed re-checks the file's tail when it takes ownership
// again, so an append made meanwhile by another (real) process is never overwritten, and
// an owned append checks its lock and the log's size with a stat each, reading nothing.

import { appendFileSync, existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import type { SessionId } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectionOf } from '../../support/thrown.js'
import { type Harness, LogBuilder, makeHeader, plain, startHarness } from '../fixtures.js'
import { ChildWriter, ensureBuilt } from './child-writer.js'

const io = vi.hoisted(() => ({
  /** Calls made while `recording`, as `fs.name` / `fs/promises.name`. */
  calls: [] as string[],
  recording: false,
  /** Set: the next positional `writeSync` fails with this code (once). */
  failNextWrite: undefined as string | undefined,
}))

/** A copy of `real` whose functions record themselves and call through. */
function watched(real: Record<string, unknown>, label: string): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(real)) {
    if (typeof value !== 'function' || !/^[a-z]/.test(name)) {
      copy[name] = value
      continue
    }
    const fn = value as (...args: unknown[]) => unknown
    const wrapper = (...args: unknown[]) => {
      if (io.recording) io.calls.push(`${label}.${name}`)
      if (label === 'fs' && name === 'writeSync' && io.failNextWrite !== undefined) {
        const code = io.failNextWrite
        io.failNextWrite = undefined
        throw Object.assign(new Error(`${code}: injected write failure`), { code })
      }
      return fn.apply(real, args)
    }
    copy[name] = Object.assign(wrapper, fn)
  }
  return copy
}

vi.mock('node:fs', async (importOriginal) => {
  const copy = watched(await importOriginal<Record<string, unknown>>(), 'fs')
  return { ...copy, default: copy }
})
vi.mock('node:fs/promises', async (importOriginal) => {
  const copy = watched(await importOriginal<Record<string, unknown>>(), 'fs/promises')
  return { ...copy, default: copy }
})

const tempDir = useTempDirs('dsh-jsonl-io-')
const running: Harness[] = []
const children: ChildWriter[] = []

beforeAll(() => ensureBuilt(), 180_000)

afterEach(async () => {
  io.recording = false
  io.calls = []
  io.failNextWrite = undefined
  for (const child of children.splice(0)) await child.kill()
  for (const harness of running.splice(0).reverse()) await harness.dispose()
})

async function start(root: string): Promise<Harness> {
  const harness = await startHarness({ plugin: JsonlSessionBackend, config: { root }, durable: true })
  running.push(harness)
  return harness
}

describe('JSONL locate under a file-system watch', () => {
  it('makes no fs call, sync or async, for any id and cwd, before or after the file exists', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    await harness.backend().create(makeHeader('written', { cwd: '/work/a' }))
    await harness.backend().append('written', new LogBuilder().completedTurn(0, 'x').events)
    const ids: SessionId[] = ['written', 'plain', '../../escape', 'x'.repeat(1000), '.', '~']
    io.recording = true
    for (const id of ids) {
      for (const cwd of [undefined, '/work/a', '/home/b']) {
        harness.backend().locate(makeHeader(id, cwd === undefined ? {} : { cwd }))
      }
    }
    io.recording = false
    expect(io.calls).toEqual([])
    // The watch itself works: a load is seen.
    io.recording = true
    await harness.backend().load('written')
    io.recording = false
    expect(io.calls.length).toBeGreaterThan(0)
  })
})

describe('JSONL tail re-check when a failed writer takes ownership again', () => {
  it('refuses the retry after another process appended, and leaves that append intact', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('retry')
    const harness = await start(root)
    const base = new LogBuilder().completedTurn(0, 'base')
    await harness.backend().create(header)
    await harness.backend().append('retry', base.events)
    const path = harness.backend().locate(header)!.path
    const baseSize = statSync(path).size

    // Our append fails (the disk was full for a moment): rolled back, the lock dropped.
    const ours = new LogBuilder(base.events.length).completedTurn(1, 'ours, retried later')
    io.failNextWrite = 'ENOSPC'
    const failed = await rejectionOf(harness.backend().append('retry', ours.events))
    expect(isDshError(failed, PersistenceErrorCode.Io)).toBe(true)
    expect(io.failNextWrite).toBeUndefined()
    expect(statSync(path).size).toBe(baseSize)

    // Meanwhile another process opens the session and appends.
    const child = await ChildWriter.spawn(root)
    children.push(child)
    await child.ok('open', { id: 'retry' })
    const theirs = new LogBuilder(base.events.length).completedTurn(1, 'theirs, written in between')
    await child.ok('append', { id: 'retry', events: theirs.events })
    await child.exit()
    const after = readFileSync(path)

    // Our retry still builds on the base (its seq check passes): only the tail re-check
    // when taking the lock again sees that the file grew, and refuses to write.
    const retry = await rejectionOf(harness.backend().append('retry', ours.events))
    expect(isDshError(retry, PersistenceErrorCode.SeqMismatch)).toBe(true)
    expect((retry as Error).message).toMatch(/changed by another process/)
    expect((retry as Error).message).toContain(
      `(${baseSize} bytes expected, ${after.length} found in ${path})`,
    )
    expect((retry as { userFacing: boolean }).userFacing).toBe(true)
    expect(readFileSync(path)).toEqual(after)
    expect(plain((await harness.backend().load('retry')).events)).toEqual([...base.events, ...theirs.events])
  })
})

describe('JSONL checks before every append while owning the log', () => {
  it('costs one stat of the lock file and one fstat of the log, never a read', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const base = new LogBuilder().completedTurn(0, 'base')
    await harness.backend().create(makeHeader('cheap'))
    await harness.backend().append('cheap', base.events.slice(0, 4))
    io.recording = true
    await harness.backend().append('cheap', base.events.slice(4))
    io.recording = false
    expect(io.calls).toEqual(['fs.statSync', 'fs.fstatSync', 'fs.writeSync', 'fs.fsyncSync'])
  })

  it('never writes over bytes someone else appended while the lock is ours', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const base = new LogBuilder().completedTurn(0, 'base')
    await harness.backend().create(makeHeader('grown'))
    await harness.backend().append('grown', base.events)
    const path = harness.backend().locate(makeHeader('grown'))!.path
    const size = statSync(path).size
    appendFileSync(path, '{"not":"ours"}\n')
    const after = readFileSync(path)
    const refused = await rejectionOf(
      harness
        .backend()
        .append('grown', new LogBuilder(base.events.length).add('turn/start', { turn: 1 }).events),
    )
    expect(isDshError(refused, PersistenceErrorCode.SeqMismatch)).toBe(true)
    expect((refused as Error).message).toBe(
      `session file ${path} was changed by another process (${size} bytes expected, ${after.length} found); nothing was written`,
    )
    expect(readFileSync(path)).toEqual(after)
  })
})

describe('JSONL load after list', () => {
  it('reads the file the list saw without probing buckets; a file gone or holding another id since is not taken', async () => {
    const root = join(tempDir(), 'sessions')
    const writer = await start(root)
    const log = new LogBuilder().completedTurn(0, 'x')
    for (const [id, cwd] of [
      ['listed', '/work/a'],
      ['replaced', '/work/b'],
      ['gone', '/work/a'],
    ] as const) {
      await writer.backend().create(makeHeader(id, { cwd }))
      await writer.backend().append(id, log.events)
      await writer.backend().release(id)
    }
    const path = (id: SessionId, cwd: string) => writer.backend().locate(makeHeader(id, { cwd }))!.path
    const reader = await start(root)
    expect((await reader.backend().list()).map((summary) => summary.header.id).sort()).toEqual([
      'gone',
      'listed',
      'replaced',
    ])

    io.recording = true
    const loaded = await reader.backend().load('listed')
    io.recording = false
    expect(loaded.header.id).toBe('listed')
    expect(plain(loaded.events)).toEqual(log.events)
    expect(io.calls.filter((call) => /\.(readdir|access)$/.test(call))).toEqual([])

    // Since the list: one log removed, another overwritten with a copy of a third.
    await writer.backend().remove('gone')
    writeFileSync(path('replaced', '/work/b'), readFileSync(path('listed', '/work/a')))
    for (const id of ['replaced', 'gone']) {
      const error = await rejectionOf(reader.backend().load(id))
      expect(isDshError(error, PersistenceErrorCode.NotFound), `${id}: ${String(error)}`).toBe(true)
    }
  })
})

describe('JSONL ownership taken again after a failed append', () => {
  it('an owned session appends without reopening its file; after a failure the retry takes the lock again and writes', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const base = new LogBuilder().completedTurn(0, 'base')
    await harness.backend().create(makeHeader('again'))
    await harness.backend().append('again', base.events.slice(0, 4))
    const lock = `${harness.backend().locate(makeHeader('again'))!.path}.lock`
    io.recording = true
    await harness.backend().append('again', base.events.slice(4))
    io.recording = false
    expect(io.calls.filter((call) => call === 'fs/promises.open')).toEqual([])

    const next = new LogBuilder(base.events.length).completedTurn(1, 'retried')
    io.failNextWrite = 'ENOSPC'
    expect(
      isDshError(await rejectionOf(harness.backend().append('again', next.events)), PersistenceErrorCode.Io),
    ).toBe(true)
    expect(existsSync(lock)).toBe(false)
    await harness.backend().append('again', next.events) // nothing changed meanwhile
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid)
    expect(plain((await harness.backend().load('again')).events)).toEqual([...base.events, ...next.events])
  })

  it('a retry after the log was removed is not found; a reopen after a failure builds on the repaired log', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const log = new LogBuilder().completedTurn(0, 'x').openTurn(1, 'cut short')
    for (const id of ['gone', 'reopened']) {
      await harness.backend().create(makeHeader(id))
      await harness.backend().append(id, log.events)
      io.failNextWrite = 'ENOSPC'
      await rejectionOf(
        harness.backend().append(id, new LogBuilder(log.events.length).add('turn/start', { turn: 2 }).events),
      )
    }
    unlinkSync(harness.backend().locate(makeHeader('gone'))!.path)
    const gone = await rejectionOf(
      harness
        .backend()
        .append('gone', new LogBuilder(log.events.length).add('turn/start', { turn: 2 }).events),
    )
    expect(isDshError(gone, PersistenceErrorCode.NotFound), String(gone)).toBe(true)

    const opened = await harness.backend().open('reopened') // closes the open turn: three closers
    expect(opened.events).toHaveLength(log.events.length + 3)
    const more = new LogBuilder(opened.events.length).completedTurn(2, 'after the reopen')
    await harness.backend().append('reopened', more.events)
    expect(plain((await harness.backend().load('reopened')).events)).toEqual([
      ...plain(opened.events),
      ...more.events,
    ])
  })
})
