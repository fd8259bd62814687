// The JSONL session logs under one root: materialization, appends, writer locks,
// loading with crash repair, listing. A plain object, so no framework proxy sits
// between the hot paths and their state; `JsonlSessionBackend` exposes it as a service.

import type { FileHandle } from 'node:fs/promises'
import { open, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { type DshError, isDshError } from '../../core/errors.js'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../../session/types.js'
import { copyLedger, emptyLedger, ledgerOf, type UsageLedger } from '../../usage/ledger.js'
import { PersistenceErrorCode } from '../errors.js'
import { describeOwner, type WriterOwner } from '../owner.js'
import { checkContinuation, notFound, removeRefused } from '../persistence.js'
import { closersForOpenTurn, givenTitle } from '../repair.js'
import type { SearchDocument, SearchRequest } from '../search-text.js'
import { assertStoragePath } from '../storage-path.js'
import type { LoadedSession, SessionLocation } from '../types.js'
import { findSessionFile, listSessions, summarizeFiles } from './catalog.js'
import { type CarriedTitle, eventLines, headerLine } from './codec.js'
import { appendAt, ensureDir, ioError, isCode, publishLog, rollbackTo } from './file-log.js'
import { imagesFolderOf, removeImageFolder } from './images.js'
import { LOCK_SUFFIX, SessionLayout } from './layout.js'
import { breakLock, liveHolder, WriterLock } from './lock.js'
import { headerIdOf } from './log-summary.js'
import { scanLog } from './reader.js'
import { searchLogs, turnInLog } from './search.js'
import { alreadyExists, changedElsewhere, lockedByUs } from './store-errors.js'

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
  /** The usage ledger of the events on disk: the next `turn/end` line carries it on. */
  usage: UsageLedger
  /** The title given so far (`session/title`): the next `turn/end` line carries it on. */
  titles: CarriedTitle
  /** Set when the lock was removed or taken over under us: every later append fails with it. */
  lost?: DshError
}

export class JsonlLogStore {
  private readonly layout: SessionLayout
  private readonly tracked = new Map<SessionId, TrackedSession>()
  /** Where the last `list` saw each session: a hint for `load`, checked by the header it reads. */
  private readonly listedPaths = new Map<SessionId, string>()
  private readonly queues = new Map<SessionId, Promise<void>>()
  private rootChecked = false

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
    const stored = await this.find(header.id, true) // a folder we cannot read must not stop new sessions
    if (stored) throw alreadyExists(header.id, stored)
    this.tracked.set(header.id, {
      path,
      pendingHeader: structuredClone(header),
      size: 0,
      count: 0,
      usage: emptyLedger(),
      titles: { seedLength: header.seedLength ?? 0 },
    })
  }

  /**
   * Appends whole lines and fsyncs; the first append publishes the file. Takes the
   * session's writer lock on first use (PERSISTENCE_LOCKED if another process holds
   * it) and refuses to write if the file changed since this process last saw it.
   * A session neither created nor opened here is opened first (`open`).
   */
  append(id: SessionId, events: SessionEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve()
    return this.serialized(id, async (known) => {
      let session = known
      if (!session) {
        await this.openTracked(id, undefined)
        session = this.tracked.get(id)!
      }
      if (session.pendingHeader) return this.materialize(id, session, events)
      if (session.lost) throw session.lost
      checkContinuation(id, session.count, events)
      const handle = await this.takeOwnership(id, session)
      // Folded into a copy: a failed write leaves the ledger as the file is.
      const usage = copyLedger(session.usage)
      const titles = { ...session.titles }
      const bytes = Buffer.from(eventLines(events, usage, titles))
      try {
        // Checked right before the write, with no await between (see docs/persistence.md).
        session.lock!.assertHeld(id)
        appendAt(handle.fd, session.size, bytes, session.path)
      } catch (error) {
        if (isDshError(error, PersistenceErrorCode.LeaseLost)) session.lost = error
        await this.dropOwnership(session) // the next append re-checks the file before writing
        throw error
      }
      session.size += bytes.length
      session.count += events.length
      session.usage = usage
      session.titles = titles
    })
  }

  /**
   * Read-only load: validates the log and returns its valid events. Never writes and
   * takes no lock: a torn tail is left out of the result (not cut from the file) and
   * an open turn is returned open.
   */
  load(id: SessionId): Promise<LoadedSession> {
    return this.serialized(id, async (known) => {
      if (!known || known.pendingHeader) {
        // Listed a moment ago (`sessions list` reads each log for its usage): try the path
        // its header gives before probing every bucket; a moved or removed file falls back.
        const listed = this.listedPaths.get(id)
        const scanned = listed !== undefined ? await scanLog(listed).catch(() => undefined) : undefined
        if (scanned?.header.id === id) return { header: scanned.header, events: scanned.events }
      }
      const path = known && !known.pendingHeader ? known.path : await this.find(id)
      if (!path) throw notFound(id)
      const scanned = await scanLog(path)
      // On a case-insensitive file system another id's file may answer to this name.
      if (scanned.header.id !== id) throw notFound(id)
      return { header: scanned.header, events: scanned.events }
    })
  }

  /**
   * Opens a stored session for writing: takes its writer lock (PERSISTENCE_LOCKED,
   * naming the holder, while another live process or backend holds it), then repairs
   * a crash durably — a torn or damaged open tail is cut, an open turn closed. The
   * lock is kept until `release`.
   */
  open(id: SessionId): Promise<LoadedSession> {
    return this.serialized(id, (known) => this.openTracked(id, known))
  }

  /** The session's image folder (beside its log, written or not yet), or undefined when unknown. */
  async imagesFolder(id: SessionId): Promise<string | undefined> {
    const known = this.tracked.get(id)
    const path = known ? known.path : await this.find(id)
    return path === undefined ? undefined : imagesFolderOf(path)
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

  /**
   * Removes the session's lock file when its holder is provably gone (or, with
   * `force`, unless this process holds it). Resolves with the removed holder, or
   * undefined when there was no lock. PERSISTENCE_LOCKED while the holder lives.
   */
  async unlock(id: SessionId, force: boolean): Promise<WriterOwner | undefined> {
    const path = await this.find(id)
    if (!path) throw notFound(id)
    if (this.tracked.get(id)?.lock) throw lockedByUs(id, path + LOCK_SUFFIX)
    return breakLock(path + LOCK_SUFFIX, id, force)
  }

  /**
   * Deletes the session's log. Its writer lock is taken first, so no live process is
   * writing it and none starts while it goes (PERSISTENCE_LOCKED naming the holder);
   * a lock left by a process that is gone is taken over. The log goes, then the lock.
   */
  remove(id: SessionId): Promise<void> {
    return this.serialized(id, async (known) => {
      if (known?.lock) throw removeRefused(id, `this process (lock file ${known.path + LOCK_SUFFIX})`)
      const path = await this.find(id)
      if (!path) throw notFound(id)
      // Another id's file answering to this name on a case-insensitive file system. A log
      // whose header cannot be read is still removable.
      const stored = headerIdOf(path)
      if (stored !== undefined && stored !== id) throw notFound(id)
      const holder = await liveHolder(path + LOCK_SUFFIX)
      if (holder) throw removeRefused(id, `${describeOwner(holder)} (lock file ${path + LOCK_SUFFIX})`)
      const lock = await WriterLock.acquire(path + LOCK_SUFFIX, id)
      try {
        await unlink(path)
        await removeImageFolder(imagesFolderOf(path))
      } catch (error) {
        if (!isCode(error, 'ENOENT')) throw ioError(`cannot remove session file ${path}`, error)
      } finally {
        await lock.release()
      }
      this.tracked.delete(id)
    })
  }

  /** Summaries from each file's head and tail only; see `listSessions`. */
  async list(onSkipped?: (file: string, reason: string) => void): Promise<SessionSummary[]> {
    const summaries = await listSessions(this.root, onSkipped)
    this.listedPaths.clear()
    for (const { header } of summaries)
      this.listedPaths.set(header.id, this.layout.sessionPath(header.id, header.cwd))
    return summaries
  }

  /** Search candidates from `request.cwd`'s bucket (or all), by ripgrep or streamed; remembers each hit's file. */
  async search(
    request: SearchRequest,
    ripgrep: string | undefined,
    visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    const dirs = request.cwd === undefined ? [this.root] : [this.layout.bucketDir(request.cwd)]
    for (const [id, file] of await searchLogs(dirs, request, ripgrep, visit)) this.listedPaths.set(id, file)
  }

  /** The turn of event `seq` (see search.ts), from the log the search found it in. */
  async turnAt(id: SessionId, seq: number): Promise<number> {
    const file = this.listedPaths.get(id) ?? (await this.find(id))
    if (file === undefined) throw notFound(id)
    return turnInLog(file, seq)
  }

  /** Summaries of the given sessions, reading only their logs. */
  async summariesOf(
    ids: ReadonlySet<SessionId>,
    onSkipped?: (file: string, reason: string) => void,
  ): Promise<SessionSummary[]> {
    const files: string[] = []
    for (const id of ids) {
      const file = this.listedPaths.get(id) ?? (await this.find(id))
      if (file) files.push(file)
    }
    const summaries = await summarizeFiles(files, onSkipped)
    return summaries.filter((summary) => ids.has(summary.header.id))
  }

  private async openTracked(id: SessionId, known: TrackedSession | undefined): Promise<LoadedSession> {
    if (known?.lock) throw lockedByUs(id, known.path + LOCK_SUFFIX)
    const path = known && !known.pendingHeader ? known.path : await this.find(id)
    if (!path) throw notFound(id)
    // Lock first: every writer takes it, so nothing changes the file while it is repaired.
    const lock = await WriterLock.acquire(path + LOCK_SUFFIX, id)
    let handle: FileHandle | undefined
    try {
      const scanned = await scanLog(path)
      // On a case-insensitive file system another id's file may answer to this name.
      if (scanned.header.id !== id) throw notFound(id)
      handle = await open(path, 'r+')
      let size = scanned.size
      if (scanned.validEnd !== size) {
        rollbackTo(handle.fd, scanned.validEnd, path)
        size = scanned.validEnd
      }
      const closers = closersForOpenTurn(scanned.events)
      // A log from before ledgers gets one from here on: its next turn/end line carries it.
      const usage = ledgerOf(scanned.events)
      const seedLength = scanned.header.seedLength ?? 0
      const titles = { seedLength, title: givenTitle(scanned.events, seedLength) }
      if (closers.length > 0) {
        const bytes = Buffer.from(eventLines(closers, usage, titles))
        lock.assertHeld(id)
        appendAt(handle.fd, size, bytes, path)
        size += bytes.length
      }
      const session = this.track(id, path, size, scanned.events.length + closers.length, usage, titles)
      session.lock = lock
      session.handle = handle
      return { header: scanned.header, events: [...scanned.events, ...closers] }
    } catch (error) {
      await handle?.close().catch(() => {}) // failed open: nothing was kept
      await lock.release()
      if (isCode(error, 'ENOENT')) throw notFound(id)
      throw error
    }
  }

  private async materialize(id: SessionId, session: TrackedSession, events: SessionEvent[]): Promise<void> {
    checkContinuation(id, 0, events)
    const header = session.pendingHeader!
    const other = await this.find(id, true)
    if (other && other !== session.path) throw alreadyExists(id, other)
    if (!this.rootChecked) {
      assertStoragePath(this.root, 'the sessions folder', 'folder')
      this.rootChecked = true
    }
    await ensureDir(dirname(session.path)).catch((error) => {
      throw ioError(`cannot create session folder ${dirname(session.path)}`, error)
    })
    const lock = await WriterLock.acquire(session.path + LOCK_SUFFIX, id)
    const usage = emptyLedger()
    const titles = { ...session.titles }
    const bytes = Buffer.from(headerLine(header) + eventLines(events, usage, titles))
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
    session.usage = usage
    session.titles = titles
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
      if (size !== session.size) throw changedElsewhere(id, session.path, session.size, size)
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

  private track(
    id: SessionId,
    path: string,
    size: number,
    count: number,
    usage: UsageLedger,
    titles: CarriedTitle,
  ): TrackedSession {
    const existing = this.tracked.get(id)
    if (existing) {
      Object.assign(existing, { path, size, count, usage, titles, pendingHeader: undefined, lost: undefined })
      return existing
    }
    const session: TrackedSession = { path, size, count, usage, titles }
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

  /** Finds a stored session's file by id alone, probing every bucket (`skipUnreadable`: see findSessionFile). */
  private find(id: SessionId, skipUnreadable = false): Promise<string | undefined> {
    return findSessionFile(this.root, id, this.layout.fileName(id), skipUnreadable)
  }
}
