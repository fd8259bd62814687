// Cross-process writer exclusion for one session log: a lock file `<log>.lock`
// holding the owner's identity (see owner.ts), published atomically with `link`.

import { closeSync, fstatSync, openSync, readFileSync, type Stats, statSync, unlinkSync } from 'node:fs'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { DshError } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { describeOwner, isOwnerGone, newWriterOwner, parseWriterOwner, type WriterOwner } from '../owner.js'
import { unlockRefused } from '../persistence.js'
import { ioError, isCode } from './file-log.js'
import { tempSibling } from './layout.js'

const ATTEMPTS = 3

/** What identifies the lock file this process published: compared, never read, before each append. */
interface LockFileMark {
  dev: number
  ino: number
  size: number
  mtimeMs: number
}

/** A held writer lock. Acquire with `WriterLock.acquire`; release exactly once. */
export class WriterLock {
  private released = false

  private constructor(
    readonly path: string,
    readonly owner: WriterOwner,
    /** Open on our lock file, so its inode cannot be reused by a later lock file while we check against it. */
    private readonly fd: number,
    private readonly mark: LockFileMark,
  ) {}

  /**
   * Takes the lock at `path`. A lock whose holder is provably gone (dead pid, a pid
   * reused by a later process, an earlier boot) is taken over; a lock held by a live
   * process, by another instance in this process, or by another host rejects with
   * PERSISTENCE_LOCKED naming the holder and how to break the lock.
   */
  static async acquire(path: string, sessionId: SessionId): Promise<WriterLock> {
    const owner = newWriterOwner()
    const text = `${JSON.stringify(owner)}\n`

    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Written aside and linked into place, so a visible lock file is always complete.
      const temp = tempSibling(path, owner.nonce)
      try {
        // Stryker disable next-line StringLiteral: equivalent, the name holds a fresh UUID, so nothing exists there for 'wx' to refuse
        await writeFile(temp, text, { mode: 0o600, flag: 'wx' })
      } catch (error) {
        await unlink(temp).catch(() => {}) // a partly written temp file is ours alone; never created: nothing to remove
        throw ioError(`cannot create lock file ${path}`, error)
      }
      let fd: number | undefined
      try {
        fd = openSync(temp, 'r')
        const mark = markOf(fstatSync(fd))
        await link(temp, path)
        return new WriterLock(path, owner, fd, mark)
      } catch (error) {
        if (fd !== undefined) closeSync(fd)
        if (!isCode(error, 'EEXIST')) throw ioError(`cannot create lock file ${path}`, error)
      } finally {
        await unlink(temp).catch(() => {}) // the temp name is ours alone; a failure only leaves litter
      }

      const seen = await readText(path)
      if (seen === undefined) continue // released meanwhile: try again
      const holder = parseOwner(seen)
      if (holder && !isOwnerGone(holder)) throw lockedError(sessionId, path, holder)
      // Stale: remove it only if it is still the lock we judged, then retry.
      if ((await readText(path)) === seen) await unlink(path).catch(() => {}) // a racing taker removed it first
    }
    throw new DshError(
      `session ${JSON.stringify(sessionId)}: could not take the writer lock ${path} (contended)`,
      PersistenceErrorCode.Locked,
      { userFacing: true },
    )
  }

  /**
   * Throws PERSISTENCE_LEASE_LOST (user-facing, naming what happened) unless the lock file
   * is still the one this lock published: removed (`dsh sessions unlock --force`) or
   * replaced, another process may be writing the log. One stat and no read, so it runs
   * before every append; the held descriptor keeps the inode from being reused.
   */
  assertHeld(sessionId: SessionId): void {
    let now: Stats | undefined
    try {
      now = statSync(this.path, { throwIfNoEntry: false })
    } catch (error) {
      throw ioError(`cannot check lock file ${this.path}`, error)
    }
    if (now !== undefined && sameMark(markOf(now), this.mark)) return
    let holder: WriterOwner | undefined
    try {
      holder = parseOwner(readFileSync(this.path, 'utf8'))
    } catch {
      holder = undefined // gone again, or unreadable: it names nobody
    }
    const what = now === undefined ? 'removed' : holder ? `taken by ${describeOwner(holder)}` : 'replaced'
    throw new DshError(
      `session ${JSON.stringify(sessionId)}: this process's writer lock was ${what} (lock file ${this.path}); nothing was written`,
      PersistenceErrorCode.LeaseLost,
      { userFacing: true },
    )
  }

  /** Removes the lock file if it is still ours. */
  async release(): Promise<void> {
    if (this.released) return
    // Stryker disable next-line BooleanLiteral: equivalent, a second release finds no file of ours (the nonce check); the flag saves the read
    this.released = true
    try {
      const seen = await readText(this.path)
      if (seen !== undefined && parseOwner(seen)?.nonce === this.owner.nonce) {
        await unlink(this.path).catch(() => {}) // already gone: nothing to release
      }
    } finally {
      closeSync(this.fd)
    }
  }

  /** Synchronous release for process shutdown paths. */
  releaseSync(): void {
    if (this.released) return
    // Stryker disable next-line BooleanLiteral: equivalent, as in release
    this.released = true
    try {
      // Stryker disable next-line OptionalChaining,StringLiteral: equivalent, a damaged lock's TypeError is caught below, and without 'utf8' JSON.parse reads the Buffer's text alike
      if (parseOwner(readFileSync(this.path, 'utf8'))?.nonce === this.owner.nonce) unlinkSync(this.path)
    } catch {
      // The lock file is already gone; nothing to release.
    } finally {
      closeSync(this.fd)
    }
  }
}

function markOf(stats: Stats): LockFileMark {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs }
}

// Size and mtime too: a lock file rewritten in place keeps its inode.
function sameMark(a: LockFileMark, b: LockFileMark): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs
}

function lockedError(sessionId: SessionId, path: string, holder: WriterOwner): DshError {
  return new DshError(
    `session ${JSON.stringify(sessionId)} is being written by ${describeOwner(holder)} (lock file ${path}); ` +
      `nothing was written. If that process is gone, run \`dsh sessions unlock ${sessionId}\``,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

/** The owner recorded in a lock file's text; undefined when unreadable (treated as stale). */
export function parseOwner(text: string): WriterOwner | undefined {
  try {
    return parseWriterOwner(JSON.parse(text))
  } catch {
    return undefined // an unreadable lock file cannot name a live owner
  }
}

/** The holder of the lock at `path` while it provably or possibly runs; undefined when free or stale. */
export async function liveHolder(path: string): Promise<WriterOwner | undefined> {
  const seen = await readText(path)
  const holder = seen === undefined ? undefined : parseOwner(seen)
  return holder && !isOwnerGone(holder) ? holder : undefined
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined
    throw ioError(`cannot read lock file ${path}`, error)
  }
}

/**
 * Breaks a lock left behind: removes `path` when its holder is provably gone, or with
 * `force` unless the holder is this very process. Resolves with the removed holder
 * (undefined when there was no lock file); PERSISTENCE_LOCKED while the holder lives.
 */
export async function breakLock(
  path: string,
  sessionId: SessionId,
  force: boolean,
): Promise<WriterOwner | undefined> {
  const seen = await readText(path)
  if (seen === undefined) return undefined
  const holder = parseOwner(seen)
  const ours = holder?.pid === process.pid && !isOwnerGone(holder)
  if (holder && !isOwnerGone(holder) && (!force || ours)) {
    throw unlockRefused(sessionId, describeOwner(holder), `lock file ${path}`, ours)
  }
  if ((await readText(path)) === seen) await unlink(path).catch(() => {}) // removed by someone else meanwhile
  return holder ?? { pid: 0, hostname: '?', acquiredAt: 0, nonce: '' }
}
