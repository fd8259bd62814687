// The writer lock's re-check before removing a stale lock: between judging a lock stale and
// removing it, another taker may have removed that stale lock and published its own. The
// re-read must see the change and leave the live lock alone. The race is made exact by
// running the other taker's step right after the first read of the lock file (the one
// stub in this file: `readFile` of node:fs/promises, otherwise real).

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { breakLock, WriterLock } from '../../../src/persistence/jsonl/lock.js'
import { newWriterOwner } from '../../../src/persistence/owner.js'
import { useTempDirs } from '../../support/temp-dir.js'

/** Runs once, right after the next `readFile` of node:fs/promises returns its text. */
const race = vi.hoisted(() => ({ afterRead: undefined as ((path: string) => void) | undefined }))

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const readFile = (async (...args: Parameters<typeof real.readFile>) => {
    const text = await real.readFile(...args)
    const step = race.afterRead
    race.afterRead = undefined
    step?.(String(args[0]))
    return text
  }) as typeof real.readFile
  return { ...real, default: { ...real, readFile }, readFile }
})

const tempDir = useTempDirs('dsh-jsonl-lock-race-')

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error, 'expected a rejection').toBeInstanceOf(Error)
  return error as Error
}

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
    const error = await rejection(WriterLock.acquire(path, 'x'))
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
