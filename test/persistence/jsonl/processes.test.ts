// Cross-process behaviour of the JSONL backend with a real second process:
// writer exclusion, takeover of a dead writer's lock, a writer whose lock was broken
// under it, the tail re-check, and rollback of a write that fails half-way (a real
// short write under ulimit -f).

import { existsSync, readFileSync, statSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectionOf } from '../../support/thrown.js'
import { type Harness, LogBuilder, makeHeader, plain, startHarness } from '../fixtures.js'
import { ChildWriter, ensureBuilt } from './child-writer.js'

const tempDir = useTempDirs('dsh-jsonl-proc-')
const running: Harness[] = []
const children: ChildWriter[] = []

beforeAll(() => ensureBuilt(), 180_000)

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill()
  for (const harness of running.splice(0).reverse()) await harness.dispose()
})

async function start(root: string): Promise<Harness> {
  const harness = await startHarness({ plugin: JsonlSessionBackend, config: { root }, durable: true })
  running.push(harness)
  return harness
}

async function spawnChild(root: string, options?: { fileSizeLimitKb?: number }): Promise<ChildWriter> {
  const child = await ChildWriter.spawn(root, options)
  children.push(child)
  return child
}

describe('JSONL writer exclusion across processes', () => {
  it('a live writer in another process makes our append fail clearly; nothing is lost', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('shared', { cwd: '/work/shared' })
    const first = new LogBuilder().completedTurn(0, 'from the child')
    const child = await spawnChild(root)
    await child.ok('create', { header })
    await child.ok('append', { id: 'shared', events: first.events })

    const harness = await start(root)
    const path = harness.backend().locate(header)!.path
    const lock = JSON.parse(readFileSync(`${path}.lock`, 'utf8'))
    expect(lock).toMatchObject({ pid: child.pid, hostname: hostname() })

    expect(plain((await harness.backend().load('shared')).events)).toEqual(first.events)
    const before = readFileSync(path)
    const ours = new LogBuilder(first.events.length).completedTurn(1, 'from the parent')
    const error = await rejectionOf(harness.backend().append('shared', ours.events))
    expect(isDshError(error, PersistenceErrorCode.Locked)).toBe(true)
    expect((error as { userFacing: boolean }).userFacing).toBe(true)
    expect((error as Error).message).toContain('"shared"')
    expect((error as Error).message).toContain(`process ${child.pid}`)
    expect(readFileSync(path)).toEqual(before)

    // The child keeps writing, then exits and releases its lock.
    const more = new LogBuilder(first.events.length).completedTurn(1, 'child again')
    await child.ok('append', { id: 'shared', events: more.events })
    await child.exit()
    expect(existsSync(`${path}.lock`)).toBe(false)

    // What we built on is stale now: the continuation check refuses to write over it.
    const stale = await rejectionOf(harness.backend().append('shared', ours.events))
    expect(isDshError(stale, PersistenceErrorCode.SeqMismatch)).toBe(true)
    expect((stale as Error).message).toMatch(/does not follow the stored tail/)
    const all = [...first.events, ...more.events]
    expect(plain((await harness.backend().load('shared')).events)).toEqual(all)

    const next = new LogBuilder(all.length).completedTurn(2, 'parent after reload')
    await harness.backend().append('shared', next.events)
    expect(plain((await harness.backend().load('shared')).events)).toEqual([...all, ...next.events])
  })

  it('after a release, an append that does not follow what another process wrote meanwhile is refused (continuation check; the tail re-check itself: io-watch.test.ts)', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('recheck')
    const harness = await start(root)
    const base = new LogBuilder().completedTurn(0, 'base')
    await harness.backend().create(header)
    await harness.backend().append('recheck', base.events)
    await harness.backend().release('recheck')

    const child = await spawnChild(root)
    await child.ok('open', { id: 'recheck' })
    const theirs = new LogBuilder(base.events.length).completedTurn(1, 'theirs')
    await child.ok('append', { id: 'recheck', events: theirs.events })
    await child.exit()

    const ours = new LogBuilder(base.events.length).completedTurn(1, 'ours')
    const error = await rejectionOf(harness.backend().append('recheck', ours.events))
    expect(isDshError(error, PersistenceErrorCode.SeqMismatch)).toBe(true)
    expect(plain((await harness.backend().load('recheck')).events)).toEqual([
      ...base.events,
      ...theirs.events,
    ])
  })

  it('takes over the lock of a writer that died', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('orphan')
    const child = await spawnChild(root)
    await child.ok('create', { header })
    const log = new LogBuilder().completedTurn(0, 'x').openTurn(1, 'killed mid-turn')
    await child.ok('append', { id: 'orphan', events: log.events })
    await child.kill()

    const harness = await start(root)
    const path = harness.backend().locate(header)!.path
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(child.pid)
    const readOnly = await harness.backend().load('orphan') // reads only: the lock stays as it was
    expect(plain(readOnly.events)).toEqual(log.events)
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(child.pid)
    const loaded = await harness.backend().open('orphan') // takes the stale lock, then repairs
    expect(loaded.events.at(-1)!.type).toBe('turn/end')
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid)
    const next = new LogBuilder(loaded.events.length).completedTurn(2, 'resumed')
    await harness.backend().append('orphan', next.events)
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid)
    expect((await harness.backend().load('orphan')).events).toHaveLength(
      loaded.events.length + next.events.length,
    )
  })
})

describe('JSONL writer whose lock was broken (`dsh sessions unlock --force`)', () => {
  it('writes not another byte once a second writer took over; its appends fail naming the new holder', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('forced', { cwd: '/work/forced' })
    const old = await start(root)
    const base = new LogBuilder().completedTurn(0, 'first').openTurn(1, 'slow reply')
    await old.backend().create(header)
    await old.backend().append('forced', base.events)
    const path = old.backend().locate(header)!.path

    // Another process breaks the old writer's lock, resumes (closing the open turn) and writes a turn.
    const second = await spawnChild(root)
    expect(await second.ok('unlock', { id: 'forced', force: true })).toMatchObject({ pid: process.pid })
    const opened = (await second.ok('open', { id: 'forced' })) as { events: unknown[] }
    const theirs = new LogBuilder(opened.events.length).completedTurn(2, 'second writer')
    await second.ok('append', { id: 'forced', events: theirs.events })
    const written = readFileSync(path)

    const rest = new LogBuilder(base.events.length)
      .add('assistant/message', { message: { content: 'slow reply' } })
      .add('turn/end', { turn: 1, reason: 'completed' })
    for (const events of [rest.events.slice(0, 1), rest.events.slice(1)]) {
      const error = await rejectionOf(old.backend().append('forced', events))
      expect(isDshError(error, PersistenceErrorCode.LeaseLost)).toBe(true)
      expect((error as { userFacing: boolean }).userFacing).toBe(true)
      expect((error as Error).message).toBe(
        `session "forced": this process's writer lock was taken by process ${second.pid} on ${hostname()} ` +
          `(since ${new Date(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).acquiredAt).toISOString()}) ` +
          `(lock file ${path}.lock); nothing was written`,
      )
      expect(readFileSync(path)).toEqual(written)
    }
    // The new writer's lock stays, and so does its log: whole, and it goes on writing.
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(second.pid)
    const loaded = plain((await old.backend().load('forced')).events)
    expect(loaded).toEqual([...(opened.events as object[]), ...theirs.events])
    const more = new LogBuilder(loaded.length).completedTurn(3, 'still writing')
    await second.ok('append', { id: 'forced', events: more.events })
    await second.exit()
    expect((await old.backend().load('forced')).events).toHaveLength(loaded.length + more.events.length)
  })

  it('fails its next append when the lock was only removed, and takes no new lock', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('removed')
    const old = await start(root)
    const base = new LogBuilder().completedTurn(0, 'first')
    await old.backend().create(header)
    await old.backend().append('removed', base.events)
    const path = old.backend().locate(header)!.path
    const breaker = await spawnChild(root)
    await breaker.ok('unlock', { id: 'removed', force: true })
    const before = readFileSync(path)

    const error = await rejectionOf(
      old
        .backend()
        .append('removed', new LogBuilder(base.events.length).add('turn/start', { turn: 1 }).events),
    )
    expect(isDshError(error, PersistenceErrorCode.LeaseLost)).toBe(true)
    expect((error as Error).message).toBe(
      `session "removed": this process's writer lock was removed (lock file ${path}.lock); nothing was written`,
    )
    expect(readFileSync(path)).toEqual(before)
    expect(existsSync(`${path}.lock`)).toBe(false)
  })
})

describe('JSONL rollback of a failed write', () => {
  it('truncates a half-written append back to the previous size (real short write under ulimit -f)', async () => {
    const root = join(tempDir(), 'sessions')
    const header = makeHeader('rollback')
    const child = await spawnChild(root, { fileSizeLimitKb: 8 })
    await child.ok('create', { header })
    const base = new LogBuilder().completedTurn(0, 'small')
    await child.ok('append', { id: 'rollback', events: base.events })
    const file = (await start(root)).backend().locate(header)!.path
    const size = statSync(file).size

    const big = new LogBuilder(base.events.length).add('tool/result', {
      callId: 'c',
      content: 'x'.repeat(12_000),
    })
    const reply = await child.call('append', { id: 'rollback', events: big.events })
    expect(reply).toMatchObject({ ok: false, code: PersistenceErrorCode.Io })
    expect(reply.message).toMatch(/rolled back/)
    expect(statSync(file).size).toBe(size)

    const small = new LogBuilder(base.events.length).add('turn/start', { turn: 1 }).add('turn/end', {
      turn: 1,
      reason: 'aborted',
    })
    await child.ok('append', { id: 'rollback', events: small.events })
    await child.exit()

    const harness = await start(root)
    expect(plain((await harness.backend().load('rollback')).events)).toEqual([
      ...base.events,
      ...small.events,
    ])
  })
})
