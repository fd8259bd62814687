// The JSONL writer lock's owner identity: pid + process start time + boot id, so a
// reused pid is stale; the held-lock error names the holder and the way out;
// `unlock`; a release never removes another owner's lock; a lock removed or replaced
// under its holder is noticed before the next write.

import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type DshError, isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { breakLock, liveHolder, WriterLock } from '../../../src/persistence/jsonl/lock.js'
import { newWriterOwner, processStartTime } from '../../../src/persistence/owner.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectedError } from '../../support/thrown.js'
import { LogBuilder, makeHeader, startHarness, useJsonlHarnesses } from '../fixtures.js'

const tempDir = useTempDirs('dsh-jsonl-lock-')
const start = useJsonlHarnesses()

/** A stored, closed session; resolves with its lock file path. */
async function stored(root: string, id: string): Promise<string> {
  const harness = await startHarness({ plugin: JsonlSessionBackend, config: { root }, durable: true })
  const header = makeHeader(id)
  await harness.backend().create(header)
  await harness.backend().append(id, new LogBuilder().completedTurn(0, 'x').events)
  const path = `${harness.backend().locate(header)!.path}.lock`
  await harness.dispose()
  return path
}

describe('JSONL writer lock identity', () => {
  it('records pid, start time and boot id', async () => {
    const root = join(tempDir(), 'sessions')
    const lockPath = await stored(root, 'who')
    const harness = await start(root)
    await harness.backend().open('who')
    const owner = JSON.parse(readFileSync(lockPath, 'utf8'))
    expect(owner).toMatchObject({ pid: process.pid, startTime: processStartTime(process.pid) })
    expect(owner.bootId).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim())
  })

  it('a lock naming a live pid that started at another time (a reused pid) is stale', async () => {
    const root = join(tempDir(), 'sessions')
    const lockPath = await stored(root, 'reused')
    const livePid = process.ppid
    const started = processStartTime(livePid)
    expect(started, 'this test needs /proc').toBeDefined()
    writeFileSync(
      lockPath,
      JSON.stringify({ ...newWriterOwner(), pid: livePid, startTime: `${Number(started) + 7}` }),
    )
    const harness = await start(root)
    await harness.backend().open('reused')
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid)
  })

  it('a lock from an earlier boot is stale even when its pid is this very process', async () => {
    const root = join(tempDir(), 'sessions')
    const lockPath = await stored(root, 'rebooted')
    // Everything else says "this very process, alive": same pid, same start time.
    const earlier = { ...newWriterOwner(), pid: process.pid, bootId: 'an-earlier-boot' }
    expect(earlier.startTime).toBe(processStartTime(process.pid))
    writeFileSync(lockPath, JSON.stringify(earlier))
    const harness = await start(root)
    const loaded = await harness.backend().open('rebooted')
    expect(loaded.events.length).toBeGreaterThan(0)
    // Taken over: the lock file now holds this acquisition, with this boot's id.
    const now = JSON.parse(readFileSync(lockPath, 'utf8'))
    expect(now).toMatchObject({
      pid: process.pid,
      bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    })
    expect(now.nonce).not.toBe(earlier.nonce)
  })

  it('a truly held lock names the holder and `dsh sessions unlock`; unlock refuses, --force breaks it', async () => {
    const root = join(tempDir(), 'sessions')
    const lockPath = await stored(root, 'held')
    const livePid = process.ppid
    // An old-format lock (no start time) naming a live process cannot be proved stale.
    const { startTime: _startTime, ...old } = newWriterOwner()
    writeFileSync(lockPath, JSON.stringify({ ...old, pid: livePid }))
    const harness = await start(root)
    const refused = await rejectedError(harness.backend().open('held'))
    expect(isDshError(refused, PersistenceErrorCode.Locked)).toBe(true)
    expect((refused as DshError).userFacing, 'one line, no stack').toBe(true)
    expect(refused.message).toContain(`process ${livePid}`)
    expect(refused.message).toContain(lockPath)
    expect(refused.message).toContain('`dsh sessions unlock held`')
    expect(refused.message).not.toContain('another backend in this process')

    const unlockRefused = await rejectedError(harness.backend().unlock('held'))
    expect(isDshError(unlockRefused, PersistenceErrorCode.Locked)).toBe(true)
    expect((unlockRefused as DshError).userFacing).toBe(true)
    expect(unlockRefused.message).toContain('--force')
    expect(await harness.backend().unlock('held', { force: true })).toMatchObject({ pid: livePid })
    expect(await harness.backend().unlock('held')).toBeUndefined()
    await harness.backend().open('held')
    // Our own lock is never broken, even forced.
    expect(
      isDshError(
        await rejectedError(harness.backend().unlock('held', { force: true })),
        PersistenceErrorCode.Locked,
      ),
    ).toBe(true)
  })

  it('unlock removes a dead holder without --force', async () => {
    const root = join(tempDir(), 'sessions')
    const lockPath = await stored(root, 'dead')
    writeFileSync(lockPath, JSON.stringify({ ...newWriterOwner(), pid: 999_999_999 }))
    const harness = await start(root)
    expect(await harness.backend().unlock('dead')).toMatchObject({ pid: 999_999_999 })
    expect(
      isDshError(await rejectedError(harness.backend().unlock('nope')), PersistenceErrorCode.NotFound),
    ).toBe(true)
  })

  it('release and releaseSync remove our own lock file, once', async () => {
    const dir = tempDir()
    const lock = await WriterLock.acquire(join(dir, 'x.jsonl.lock'), 'x')
    await lock.release()
    expect(readdirSync(dir)).toEqual([])
    await lock.release()
    const sync = await WriterLock.acquire(join(dir, 'y.jsonl.lock'), 'y')
    sync.releaseSync()
    expect(readdirSync(dir)).toEqual([])
    sync.releaseSync()
    // A lock damaged meanwhile names no owner, so it is not ours: left alone.
    const damaged = await WriterLock.acquire(join(dir, 'z.jsonl.lock'), 'z')
    writeFileSync(damaged.path, 'damaged')
    await damaged.release()
    expect(readFileSync(damaged.path, 'utf8')).toBe('damaged')
  })

  it('release leaves a lock that is no longer ours alone', async () => {
    const path = join(tempDir(), 'x.jsonl.lock')
    const lock = await WriterLock.acquire(path, 'x')
    const other = JSON.stringify({ ...newWriterOwner(), pid: 999_999_999 })
    writeFileSync(path, other) // taken over meanwhile by someone else
    await lock.release()
    expect(readFileSync(path, 'utf8')).toBe(other)

    const second = await WriterLock.acquire(join(tempDir(), 'y.jsonl.lock'), 'y')
    writeFileSync(second.path, other)
    second.releaseSync()
    expect(readFileSync(second.path, 'utf8')).toBe(other)
  })
})

describe('JSONL writer lock file', () => {
  it('is published complete, readable by its owner only, with no temporary file left', async () => {
    const dir = tempDir()
    const path = join(dir, 'x.jsonl.lock')
    const lock = await WriterLock.acquire(path, 'x')
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(lock.owner)}\n`)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['x.jsonl.lock'])
    // A refused taker and a taker of a stale lock leave no temporary file either.
    writeFileSync(path, JSON.stringify({ ...newWriterOwner(), pid: process.ppid, startTime: undefined }))
    expect(isDshError(await rejectedError(WriterLock.acquire(path, 'x')), PersistenceErrorCode.Locked)).toBe(
      true,
    )
    writeFileSync(path, JSON.stringify({ ...newWriterOwner(), pid: 999_999_999 }))
    const taken = await WriterLock.acquire(path, 'x')
    expect(JSON.parse(readFileSync(path, 'utf8')).nonce).toBe(taken.owner.nonce)
    expect(readdirSync(dir)).toEqual(['x.jsonl.lock'])
  })

  it('a lock file that names no owner (damaged) is stale and taken over', async () => {
    const path = join(tempDir(), 'x.jsonl.lock')
    for (const damaged of ['', '{"pid":', 'null', '{"pid":"7","hostname":"h","nonce":"n"}']) {
      writeFileSync(path, damaged)
      const lock = await WriterLock.acquire(path, 'x')
      expect(JSON.parse(readFileSync(path, 'utf8')).nonce, damaged).toBe(lock.owner.nonce)
      await lock.release()
    }
  })

  it('fails with one line naming the lock file when it cannot be created or read', async () => {
    const dir = tempDir()
    const missing = join(dir, 'missing', 'x.jsonl.lock')
    const notCreated = await rejectedError(WriterLock.acquire(missing, 'x'))
    expect(isDshError(notCreated, PersistenceErrorCode.Io)).toBe(true)
    expect(notCreated.message).toMatch(new RegExp(`^cannot create lock file ${missing}: ENOENT`))
    // A folder where the lock file should be: the link finds it taken, and reading it fails.
    const folder = join(dir, 'y.jsonl.lock')
    mkdirSync(folder)
    const notRead = await rejectedError(WriterLock.acquire(folder, 'y'))
    expect(isDshError(notRead, PersistenceErrorCode.Io)).toBe(true)
    expect(notRead.message).toMatch(new RegExp(`^cannot read lock file ${folder}: EISDIR`))
    expect(readdirSync(dir).sort()).toEqual(['y.jsonl.lock'])
  })

  it('assertHeld passes while the lock file is ours, and names what happened to it when not', async () => {
    const dir = tempDir()
    const path = join(dir, 'x.jsonl.lock')
    const lost = (lock: WriterLock) => {
      try {
        lock.assertHeld('x')
      } catch (error) {
        expect(isDshError(error, PersistenceErrorCode.LeaseLost)).toBe(true)
        expect((error as DshError).userFacing).toBe(true)
        return (error as Error).message
      }
      return undefined
    }
    const ours = await WriterLock.acquire(path, 'x')
    expect(lost(ours)).toBeUndefined()
    expect(lost(ours)).toBeUndefined()
    // Rewritten in place (the same inode) by another owner.
    const other = { ...newWriterOwner(), pid: 999_999_999 }
    writeFileSync(path, JSON.stringify(other))
    expect(lost(ours)).toBe(
      `session "x": this process's writer lock was taken by process 999999999 on ${hostname()} ` +
        `(since ${new Date(other.acquiredAt).toISOString()}) (lock file ${path}); nothing was written`,
    )
    await ours.release()

    // Removed, then taken by a new lock: the old inode stays ours while we hold it, so the new one differs.
    const first = await WriterLock.acquire(path, 'x')
    unlinkSync(path)
    expect(lost(first)).toBe(
      `session "x": this process's writer lock was removed (lock file ${path}); nothing was written`,
    )
    const second = await WriterLock.acquire(path, 'x')
    expect(lost(second)).toBeUndefined()
    expect(lost(first)).toMatch(/writer lock was taken by this process on /)
    await first.release()
    expect(JSON.parse(readFileSync(path, 'utf8')).nonce).toBe(second.owner.nonce)
    unlinkSync(path)
    writeFileSync(path, 'damaged')
    expect(lost(second)).toMatch(/writer lock was replaced \(lock file /)
  })

  it('liveHolder names only a holder that runs or may run', async () => {
    const dir = tempDir()
    const path = join(dir, 'x.jsonl.lock')
    expect(await liveHolder(path)).toBeUndefined()
    const lock = await WriterLock.acquire(path, 'x')
    expect(await liveHolder(path)).toEqual(lock.owner)
    writeFileSync(path, JSON.stringify({ ...newWriterOwner(), pid: 999_999_999 }))
    expect(await liveHolder(path)).toBeUndefined()
    writeFileSync(path, 'damaged')
    expect(await liveHolder(path)).toBeUndefined()
    // Another host's process cannot be seen, so it may run.
    const remote = { ...newWriterOwner(), pid: 999_999_999, hostname: `not-${hostname()}` }
    writeFileSync(path, JSON.stringify(remote))
    expect(await liveHolder(path)).toMatchObject({ pid: 999_999_999, hostname: remote.hostname })
  })

  it("breakLock removes a damaged lock, and never this process's own, which it tells to stop first", async () => {
    const dir = tempDir()
    const path = join(dir, 'x.jsonl.lock')
    expect(await breakLock(path, 'x', false)).toBeUndefined()
    writeFileSync(path, 'damaged')
    expect(await breakLock(path, 'x', false)).toEqual({ pid: 0, hostname: '?', acquiredAt: 0, nonce: '' })
    expect(readdirSync(dir)).toEqual([])

    const lock = await WriterLock.acquire(path, 'x')
    const ours = await rejectedError(breakLock(path, 'x', true))
    expect(isDshError(ours, PersistenceErrorCode.Locked)).toBe(true)
    expect(ours.message).toBe(
      `session "x" is held by this process on ${hostname()} (since ${new Date(lock.owner.acquiredAt).toISOString()}), which is still running (lock file ${path}); stop it first`,
    )
    expect(JSON.parse(readFileSync(path, 'utf8')).nonce).toBe(lock.owner.nonce)

    const other = { ...newWriterOwner(), pid: process.ppid, startTime: undefined }
    writeFileSync(path, JSON.stringify(other))
    const live = await rejectedError(breakLock(path, 'x', false))
    expect(live.message).toContain(`process ${process.ppid} on`)
    expect(live.message).toMatch(
      /stop it first, or pass --force if it is not really dsh writing this session$/,
    )
    expect(await breakLock(path, 'x', true)).toMatchObject({ pid: process.ppid, nonce: other.nonce })
    expect(readdirSync(dir)).toEqual([])
  })
})
