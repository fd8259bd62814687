// The JSONL session logs under one root: materialization, appends, writer locks,
// loading with crash repair, listing. A plain object, so no framework proxy sits
// between the hot paths and their state; `JsonlSessionBackend` exposes it as a service.

import type { FileHandle } from 'node:fs/promises'
import { open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { DshError } from '../../core/errors.js'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { checkContinuation, notFound } from '../persistence.js'
import { closersForOpenTurn } from '../repair.js'
import type { LoadedSession, SessionLocation } from '../types.js'
import { findSessionFile, listSessions } from './catalog.js'
import { eventLines, headerLine } from './codec.js'
import { appendAt, ensureDir, ioError, isCode, publishLog, rollbackTo } from './file-log.js'
import { LOCK_SUFFIX, SessionLayout } from './layout.js'
import { WriterLock } from './lock.js'
import { scanLog } from './reader.js'

/** What this backend knows about one session it created, loaded or writes. */
interface TrackedSession {
  path: string
  /** Held in memory until the first append materializes the file. */
  pendingHeader?: SessionHeader
  /** Bytes and events on disk as of our last read or write. */
  size: number
  count: number
  /** Held while this process is the session's writer. */
  lock?: WriterLock
  handle?: FileHandle
}

const LOAD_ATTEMPTS = 3

export class JsonlLogStore {
  private readonly layout: SessionLayout
  private readonly tracked = new Map<SessionId, TrackedSession>()
  private readonly queues = new Map<SessionId, Promise<void>>()

  /** @param root an absolute folder. */
  constructor(readonly root: string) {
    this.layout = new SessionLayout(root)
  }

  /** Drops every writer lock and handle at once (service shutdown). */
  releaseAllSync(): void {
    for (const session of this.tracked.values()) {
      session.lock?.releaseSync()
      void session.handle?.close().catch(() => {}) // shutdown: the file is already durable
    }
    this.tracked.clear()
  }

  /** Where the session's log is or would be. Pure: computed from the header, no I/O. */
  locate(header: SessionHeader): SessionLocation {
    return { kind: 'jsonl', path: this.layout.sessionPath(header.id, header.cwd) }
  }

  /** Validates the id and keeps the header in memory; writes nothing. */
  async create(header: SessionHeader): Promise<void> {
    const path = this.layout.sessionPath(header.id, header.cwd)
    const existing = this.tracked.get(header.id)
    if (existing && !existing.pendingHeader) throw alreadyExists(header.id, existing.path)
    const stored = await this.find(header.id)
    if (stored) throw alreadyExists(header.id, stored)
    this.tracked.set(header.id, { path, pendingHeader: structuredClone(header), size: 0, count: 0 })
  }

  /**
   * Appends whole lines and fsyncs; the first append publishes the file. Takes the
   * session's writer lock on first use (PERSISTENCE_LOCKED if another process holds
   * it) and refuses to write if the file changed since this process last saw it.
   */
  append(id: SessionId, events: SessionEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve()
    return this.serialized(id, async (known) => {
      // Neither created nor loaded here: load first, which also checks and repairs the file.
      let session = known
      if (!session) {
        await this.loadTracked(id, undefined)
        session = this.tracked.get(id)!
      }
      if (session.pendingHeader) return this.materialize(id, session, events)
      checkContinuation(id, session.count, events)
      const handle = await this.takeOwnership(id, session)
      const bytes = Buffer.from(eventLines(events))
      try {
        appendAt(handle.fd, session.size, bytes, session.path)
      } catch (error) {
        await this.dropOwnership(session) // the next append re-checks the file before writing
        throw error
      }
      session.size += bytes.length
      session.count += events.length
    })
  }

  /**
   * Loads and validates a session, repairing a crash: a torn or damaged open tail
   * is cut and an open turn closed, durably. When the session is being written
   * (by another process, or by this one) the repair is skipped and the stored
   * events are returned as they are: its open turn is in progress.
   */
  load(id: SessionId): Promise<LoadedSession> {
    return this.serialized(id, (session) => this.loadTracked(id, session))
  }

  async exists(id: SessionId): Promise<boolean> {
    const session = this.tracked.get(id)
    if (session) return !session.pendingHeader
    return (await this.find(id)) !== undefined
  }

  /** Closes the file and drops the writer lock; later calls reopen as needed. */
  release(id: SessionId): Promise<void> {
    return this.serialized(id, async (session) => {
      if (session) await this.dropOwnership(session)
      this.tracked.delete(id)
    })
  }

  /** Summaries from each file's head and tail only; see `listSessions`. */
  list(): Promise<SessionSummary[]> {
    return listSessions(this.root)
  }

  private async loadTracked(id: SessionId, known: TrackedSession | undefined): Promise<LoadedSession> {
    const path = known && !known.pendingHeader ? known.path : await this.find(id)
    if (!path) throw notFound(id)
    for (let attempt = 0; attempt < LOAD_ATTEMPTS; attempt++) {
      const scanned = await scanLog(path)
      // On a case-insensitive file system another id's file may answer to this name.
      if (scanned.header.id !== id) throw notFound(id)
      const session = this.track(id, path, scanned.size, scanned.events.length)
      const closers = closersForOpenTurn(scanned.events)
      if (scanned.validEnd === scanned.size && closers.length === 0) {
        return { header: scanned.header, events: scanned.events }
      }

      // Written by this process right now: its open turn is in progress, not crashed
      // (our own writes are whole or rolled back, so there is no torn tail either).
      if (session.lock) return { header: scanned.header, events: scanned.events }
      let handle: FileHandle
      try {
        handle = await this.takeOwnership(id, session)
      } catch (error) {
        if (error instanceof DshError && error.code === PersistenceErrorCode.Locked) {
          // Live elsewhere: its open turn is in progress, not crashed.
          return { header: scanned.header, events: scanned.events }
        }
        if (error instanceof DshError && error.code === PersistenceErrorCode.SeqMismatch) continue
        throw error
      }
      try {
        if (scanned.validEnd !== scanned.size) rollbackTo(handle.fd, scanned.validEnd, path)
        session.size = scanned.validEnd
        if (closers.length > 0) {
          const bytes = Buffer.from(eventLines(closers))
          appendAt(handle.fd, session.size, bytes, path)
          session.size += bytes.length
          session.count += closers.length
        }
      } finally {
        await this.dropOwnership(session) // taken for the repair only; the next append retakes it
      }
      return { header: scanned.header, events: [...scanned.events, ...closers] }
    }
    throw new DshError(
      `session ${JSON.stringify(id)} keeps changing while it is repaired (${path}); another process is writing it`,
      PersistenceErrorCode.Locked,
      { userFacing: true },
    )
  }

  private async materialize(id: SessionId, session: TrackedSession, events: SessionEvent[]): Promise<void> {
    checkContinuation(id, 0, events)
    const header = session.pendingHeader!
    const other = await this.find(id)
    if (other && other !== session.path) throw alreadyExists(id, other)
    await ensureDir(dirname(session.path)).catch((error) => {
      throw ioError(`cannot create session folder ${dirname(session.path)}`, error)
    })
    const lock = await WriterLock.acquire(session.path + LOCK_SUFFIX, id)
    const bytes = Buffer.from(headerLine(header) + eventLines(events))
    try {
      session.handle = await publishLog(session.path, bytes)
    } catch (error) {
      await lock.release()
      throw error
    }
    session.lock = lock
    session.pendingHeader = undefined
    session.size = bytes.length
    session.count = events.length
  }

  /** Takes the writer lock (if not held), checks the file is as last seen, opens it. */
  private async takeOwnership(id: SessionId, session: TrackedSession): Promise<FileHandle> {
    if (session.lock && session.handle) return session.handle
    const lock = session.lock ?? (await WriterLock.acquire(session.path + LOCK_SUFFIX, id))
    session.lock = lock
    try {
      const handle = await open(session.path, 'r+')
      session.handle = handle
      const { size } = await handle.stat()
      if (size !== session.size) {
        throw new DshError(
          `session ${JSON.stringify(id)} was changed by another process since it was read ` +
            `(${session.size} bytes expected, ${size} found in ${session.path}); reload it; nothing was written`,
          PersistenceErrorCode.SeqMismatch,
          { userFacing: true },
        )
      }
      return handle
    } catch (error) {
      await this.dropOwnership(session)
      if (isCode(error, 'ENOENT')) throw notFound(id)
      throw error
    }
  }

  private async dropOwnership(session: TrackedSession): Promise<void> {
    const { handle, lock } = session
    session.handle = undefined
    session.lock = undefined
    await handle?.close().catch(() => {}) // closing a broken handle: nothing more to lose
    await lock?.release()
  }

  private track(id: SessionId, path: string, size: number, count: number): TrackedSession {
    const existing = this.tracked.get(id)
    if (existing) {
      Object.assign(existing, { path, size, count, pendingHeader: undefined })
      return existing
    }
    const session: TrackedSession = { path, size, count }
    this.tracked.set(id, session)
    return session
  }

  /** Runs `task` after every earlier operation on the same session in this process. */
  private serialized<T>(
    id: SessionId,
    task: (session: TrackedSession | undefined) => Promise<T>,
  ): Promise<T> {
    const run = (this.queues.get(id) ?? Promise.resolve()).then(() => task(this.tracked.get(id)))
    const tail = run.then(
      () => {},
      () => {}, // a failed operation rejects its own caller only
    )
    this.queues.set(id, tail)
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id)
    })
    return run
  }

  /** Finds a stored session's file by id alone, probing every bucket. */
  private find(id: SessionId): Promise<string | undefined> {
    return findSessionFile(this.root, id, this.layout.fileName(id))
  }
}

function alreadyExists(id: SessionId, path: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} already exists (${path})`,
    PersistenceErrorCode.AlreadyExists,
    {
      userFacing: true,
    },
  )
}
