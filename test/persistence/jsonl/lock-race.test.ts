// The writer lock against other takers and odd file systems. Between judging a lock stale
// and removing it, another taker may have removed that stale lock and published its own:
// the re-read must see the change and leave the live lock alone. Takers that keep
// replacing the lock make acquire give up after three attempts. A file system that
// refuses hard links, or a full disk, fails with one line and publishes nothing. The
// races are exact: the other taker's step runs right after a read of the lock file. The
// stubs in this file are `readFile`, `link` and `writeFile` of node:fs/promises, real
// unless a test arms them.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type DshError, isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { breakLock, WriterLock } from '../../../src/persistence/jsonl/lock.js'
import { newWriterOwner } from '../../../src/persistence/owner.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectedError } from '../../support/thrown.js'

/** `afterRead` runs once, right after the next `readFile` returns its text (`everyRead`: after each one); `linkError` fails the next `link`. */
const race = vi.hoisted(() => ({
  afterRead: undefined as ((path: string) => void) | undefined,
  everyRead: undefined as ((path: string) => void) | undefined,
  linkError: undefined as NodeJS.ErrnoException | undefined,
  /** Fails the next `writeFile` after it created the file, empty (a full disk). */
  writeError: undefined as NodeJS.ErrnoException | undefined,
}))

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const readFile = (async (...args: Parameters<typeof real.readFile>) => {
    const text = await real.readFile(...args)
    const step = race.afterRead
    race.afterRead = undefined
    step?.(String(args[0]))
    race.everyRead?.(String(args[0]))
    return text
  }) as typeof real.readFile
  const link = (async (...args: Parameters<typeof real.link>) => {
    const error = race.linkError
    race.linkError = undefined
    if (error) throw error
    return real.link(...args)
  }) as typeof real.link
  const writeFile = (async (...args: Parameters<typeof real.writeFile>) => {
    const error = race.writeError
    race.writeError = undefined
    if (!error) return real.writeFile(...args)
    await real.writeFile(args[0], '', args[2])
    throw error
  }) as typeof real.writeFile
  return {
    ...real,
    default: { ...real, readFile, link, writeFile },
    readFile,
    link,
    writeFile,
  }
})

const tempDir = useTempDirs('dsh-jsonl-lock-race-')
afterEach(() => {
  race.afterRead = race.everyRead = race.linkError = race.writeError = undefined
})

/** A lock file of a holder that provably no longer runs. */
const stale = () => JSON.stringify({ ...newWriterOwner(), pid: 999_999_999 })
/** A lock file of a holder that may run: a live pid, no start time to tell a reused pid. */
const live = () => JSON.stringify({ ...newWriterOwner(), pid: process.ppid, startTime: undefined })

describe('JSONL writer lock: a stale lock replaced by a live one meanwhile', () => {
  it('acquire leaves the live lock in place and reports it held', async () => {
    const path = join(tempDir(), 'x.jsonl.lock')
    writeFileSync(path, stale())
    const theirs = live()
    race.afterRead = (read) => {
      expect(read).toBe(path)
      writeFileSync(path, theirs) // another taker removed the stale lock and published its own
    }
    const error = await rejectedError(WriterLock.acquire(path, 'x'))
    expect(isDshError(error, PersistenceErrorCode.Locked)).toBe(true)
    expect(error.message).toContain(`process ${process.ppid}`)
    expect(readFileSync(path, 'utf8')).toBe(theirs)
  })

  it('breakLock leaves the live lock in place', async () => {
    const path = join(tempDir(), 'x.jsonl.lock')
    writeFileSync(path, stale())
    const theirs = live()
    race.afterRead = () => writeFileSync(path, theirs)
    // It answers with the stale holder it judged; the lock it did not judge stays.
    expect(await breakLock(path, 'x', false)).toMatchObject({ pid: 999_999_999 })
    expect(readFileSync(path, 'utf8')).toBe(theirs)
  })
})

describe('JSONL writer lock: contention and file systems', () => {
  it('gives up after three attempts while other takers keep replacing a stale lock', async () => {
    const path = join(tempDir(), 'x.jsonl.lock')
    writeFileSync(path, stale())
    let reads = 0
    // Each read finds the lock replaced by yet another stale one: never the lock judged. A
    // bound keeps a looping bug from running forever: after 20 reads the replacing stops.
    race.everyRead = () => {
      reads++
      if (reads <= 20) writeFileSync(path, stale())
    }
    const error = await rejectedError(WriterLock.acquire(path, 'x'))
    expect(isDshError(error, PersistenceErrorCode.Locked)).toBe(true)
    expect(error.message).toBe(`session "x": could not take the writer lock ${path} (contended)`)
    expect((error as DshError).userFacing).toBe(true)
    expect(reads, 'three attempts, each reading the lock and re-reading it before removal').toBe(6)
  })

  it('a file system that refuses hard links fails with one line naming the lock file', async () => {
    const dir = tempDir()
    const path = join(dir, 'x.jsonl.lock')
    race.linkError = Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' })
    const error = await rejectedError(WriterLock.acquire(path, 'x'))
    expect(isDshError(error, PersistenceErrorCode.Io)).toBe(true)
    expect(error.message).toBe(`cannot create lock file ${path}: EPERM: operation not permitted, link`)
    expect(readdirSync(dir)).toEqual([]) // the temporary file is removed too
  })

  it('a full disk while writing the lock publishes no lock and leaves no temporary file', async () => {
    const dir = tempDir()
    const path = join(dir, 'x.jsonl.lock')
    race.writeError = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    const error = await rejectedError(WriterLock.acquire(path, 'x'))
    expect(isDshError(error, PersistenceErrorCode.Io)).toBe(true)
    expect(error.message).toBe(`cannot create lock file ${path}: ENOSPC: no space left on device, write`)
    expect(readdirSync(dir)).toEqual([])
  })
})
