// Cross-process writer exclusion for one session log: a lock file `<log>.lock`
// holding the owner's pid, host and boot id, published atomically with `link`.

import { randomUUID } from 'node:crypto'
import { readFileSync, unlinkSync } from 'node:fs'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { DshError } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { ioError, isCode } from './file-log.js'
import { tempSibling } from './layout.js'

export interface LockOwner {
  pid: number
  hostname: string
  /** Linux boot id: a lock from an earlier boot is stale even if its pid is reused. */
  bootId?: string
  acquiredAt: number
  /** Distinguishes this acquisition from any other by the same pid. */
  nonce: string
}

const ATTEMPTS = 3

/** A held writer lock. Acquire with `WriterLock.acquire`; release exactly once. */
export class WriterLock {
  private released = false

  private constructor(
    readonly path: string,
    readonly owner: LockOwner,
  ) {}

  /**
   * Takes the lock at `path`. A lock left by a dead process on this host (or by an
   * earlier boot) is taken over; a lock held by a live process, by another
   * instance in this process, or by another host rejects with PERSISTENCE_LOCKED.
   */
  static async acquire(path: string, sessionId: SessionId): Promise<WriterLock> {
    const owner: LockOwner = {
      pid: process.pid,
      hostname: hostname(),
      acquiredAt: Date.now(),
      nonce: randomUUID(),
    }
    const bootId = currentBootId()
    if (bootId) owner.bootId = bootId
    const text = `${JSON.stringify(owner)}\n`

    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Written aside and linked into place, so a visible lock file is always complete.
      const temp = tempSibling(path, owner.nonce)
      await writeFile(temp, text, { mode: 0o600, flag: 'wx' })
      try {
        await link(temp, path)
        return new WriterLock(path, owner)
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw ioError(`cannot create lock file ${path}`, error)
      } finally {
        await unlink(temp).catch(() => {}) // the temp name is ours alone; a failure only leaves litter
      }

      const seen = await readText(path)
      if (seen === undefined) continue // released meanwhile: try again
      const holder = parseOwner(seen)
      if (holder && isAlive(holder)) throw lockedError(sessionId, path, holder)
      // Stale: remove it only if it is still the lock we judged, then retry.
      if ((await readText(path)) === seen) await unlink(path).catch(() => {}) // a racing taker removed it first
    }
    throw new DshError(
      `session ${JSON.stringify(sessionId)}: could not take the writer lock ${path} (contended)`,
      PersistenceErrorCode.Locked,
      { userFacing: true },
    )
  }

  /** Removes the lock file if it is still ours. */
  async release(): Promise<void> {
    if (this.released) return
    this.released = true
    const seen = await readText(this.path)
    if (seen !== undefined && parseOwner(seen)?.nonce === this.owner.nonce) {
      await unlink(this.path).catch(() => {}) // already gone: nothing to release
    }
  }

  /** Synchronous release for process shutdown paths. */
  releaseSync(): void {
    if (this.released) return
    this.released = true
    try {
      if (parseOwner(readFileSync(this.path, 'utf8'))?.nonce === this.owner.nonce) unlinkSync(this.path)
    } catch {
      // The lock file is already gone; nothing to release.
    }
  }
}

function lockedError(sessionId: SessionId, path: string, holder: LockOwner): DshError {
  const who = holder.pid === process.pid ? 'another backend in this process' : `process ${holder.pid}`
  return new DshError(
    `session ${JSON.stringify(sessionId)} is being written by ${who} on ${holder.hostname} (lock file ${path}); nothing was written`,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

function isAlive(holder: LockOwner): boolean {
  if (holder.hostname !== hostname()) return true // cannot see another host's processes
  const bootId = currentBootId()
  if (holder.bootId && bootId && holder.bootId !== bootId) return false
  if (holder.pid === process.pid) return true
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    return !isCode(error, 'ESRCH')
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>
    if (
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.nonce === 'string'
    ) {
      return value as LockOwner
    }
  } catch {
    // An unreadable lock file cannot name a live owner; it is treated as stale.
  }
  return undefined
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined
    throw ioError(`cannot read lock file ${path}`, error)
  }
}

let bootIdCache: string | null | undefined
function currentBootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null
    } catch {
      bootIdCache = null // not Linux: staleness falls back to the pid check
    }
  }
  return bootIdCache ?? undefined
}
