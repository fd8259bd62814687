// The SQLite persistence backend: every session as rows of one shared database
// (better-sqlite3, WAL, synchronous=FULL). Sessions have no dedicated file; a
// per-session writer lease (lease.ts) keeps a second process from writing one.

import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import Database from 'better-sqlite3'
import type { Context } from 'cordis'
import { DshError, errorMessage } from '../../core/errors.js'
import { validateEvent, validateSessionId } from '../../session/session.js'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { describeOwner, isOwnerGone, newWriterOwner, type WriterOwner } from '../owner.js'
import {
  checkContinuation,
  notFound,
  removeRefused,
  SessionPersistence,
  unlockRefused,
} from '../persistence.js'
import { closersForOpenTurn } from '../repair.js'
import type { SearchDocument, SearchRequest, SessionBound } from '../search-text.js'
import { assertStoragePath } from '../storage-path.js'
import type { LoadedSession, SessionLocation } from '../types.js'
import { alreadyExists, storageFailure } from './errors.js'
import { IMAGES_SCHEMA, prepareImageStatements } from './images.js'
import {
  assertLease,
  LEASE_SCHEMA,
  type LeaseStatements,
  leaseHolder,
  prepareLeaseStatements,
  takeLease,
} from './lease.js'
import { corruptSession, parseHeaderText, rowSummaries } from './rows.js'
import {
  addMissingColumns,
  type EventRow,
  idsWithPrefix,
  prepareStatements,
  SCHEMA,
  type SessionRow,
  type Statements,
  updateSession,
} from './schema.js'
import {
  indexEvents,
  migrateSearchIndex,
  prepareSearchStatements,
  type SearchStatements,
  searchBounds,
  searchDocumentsOf,
  unindexSession,
} from './search-index.js'
import { prepareUsageStatements, updateUsage } from './usage.js'

export interface SqliteBackendConfig {
  /** The database file; resolved to an absolute path at construction, opened on first use. */
  file: string
}

export class SqliteSessionBackend extends SessionPersistence {
  readonly file: string
  private db:
    | { connection: Database.Database; sql: Statements; lease: LeaseStatements; search: SearchStatements }
    | undefined
  /** Created sessions whose first append has not happened yet. */
  private readonly pending = new Map<SessionId, SessionHeader>()
  /** Writer leases this instance holds, by session: the owner record stored in `leases`. */
  private readonly leases = new Map<SessionId, WriterOwner>()
  /** Seed lengths of the sessions this instance writes: a fork's title skips its seed. */
  private readonly seeds = new Map<SessionId, number>()

  constructor(ctx: Context, config: SqliteBackendConfig) {
    super(ctx)
    this.file = resolve(config.file)
    ctx.effect(
      () => () => {
        this.releaseAllSync()
        this.db?.connection.close()
        this.db = undefined
      },
      'sqlite: release leases, close database',
    )
  }

  /** A session is rows in a shared database, not a dedicated file. */
  locate(_header: SessionHeader): SessionLocation | undefined {
    return undefined
  }

  /**
   * The durability settings of the connection this backend writes with (opening it when
   * needed): `synchronous` is per connection, so another connection cannot tell.
   * Expected: journal mode `wal`, synchronous 2 (FULL).
   */
  durability(): { journalMode: string; synchronous: number } {
    const { connection } = this.database()
    return {
      journalMode: String(connection.pragma('journal_mode', { simple: true })),
      synchronous: Number(connection.pragma('synchronous', { simple: true })),
    }
  }

  /** Keeps the header in memory; the first append inserts it and takes the writer lease. */
  async create(header: SessionHeader): Promise<void> {
    validateSessionId(header.id)
    if (this.database().sql.exists.get(header.id)) throw alreadyExists(header.id)
    this.pending.set(header.id, structuredClone(header))
    this.seeds.set(header.id, header.seedLength ?? 0)
  }

  /**
   * Inserts the events (and, first time, the header) in one write transaction that
   * also checks this instance still holds the session's lease (taking it on the first
   * append of a created session). A session neither created nor opened here is opened first.
   */
  async append(id: SessionId, events: SessionEvent[]): Promise<void> {
    validateSessionId(id)
    if (events.length === 0) return
    if (!this.pending.has(id) && !this.leases.has(id)) await this.open(id)
    const { connection, sql, lease } = this.database()
    const owner = this.leases.get(id) ?? newWriterOwner()
    const write = connection.transaction(() => {
      const row = sql.count.get(id) as { event_count: number } | undefined
      const header = this.pending.get(id)
      if (header) {
        if (row) throw alreadyExists(id)
        checkContinuation(id, 0, events)
        takeLease(lease, id, owner, this.file)
        sql.insertSession.run(
          id,
          JSON.stringify(header),
          header.createdAt,
          header.cwd ?? null,
          header.createdAt,
        )
      } else {
        if (!row) throw notFound(id)
        assertLease(lease, id, owner.nonce, this.file)
        checkContinuation(id, row.event_count, events)
      }
      this.insertEvents(sql, id, events)
    })
    try {
      write.immediate()
    } catch (error) {
      throw storageFailure(error, `cannot append to session ${JSON.stringify(id)} in ${this.file}`)
    }
    this.pending.delete(id)
    this.leases.set(id, owner)
  }

  /** Read-only: the stored header and events, as they are; writes nothing. */
  async load(id: SessionId): Promise<LoadedSession> {
    validateSessionId(id)
    const { connection, sql } = this.database()
    // One read transaction: header and events from the same snapshot.
    return connection.transaction(() => this.read(sql, id))()
  }

  /**
   * Takes the writer lease and closes an open turn, in one write transaction. A live
   * holder rejects with PERSISTENCE_LOCKED before anything is read or written.
   */
  async open(id: SessionId): Promise<LoadedSession> {
    validateSessionId(id)
    const { connection, sql, lease } = this.database()
    const owner = newWriterOwner()
    const open = connection.transaction(() => {
      if (!sql.exists.get(id)) throw notFound(id)
      takeLease(lease, id, owner, this.file)
      const loaded = this.read(sql, id)
      this.seeds.set(id, loaded.header.seedLength ?? 0)
      const closers = closersForOpenTurn(loaded.events)
      if (closers.length > 0) this.insertEvents(sql, id, closers)
      return { header: loaded.header, events: [...loaded.events, ...closers] }
    })
    let opened: LoadedSession
    try {
      opened = open.immediate()
    } catch (error) {
      throw storageFailure(error, `cannot open session ${JSON.stringify(id)} for writing in ${this.file}`)
    }
    this.pending.delete(id)
    this.leases.set(id, owner)
    return opened
  }

  override async exists(id: SessionId): Promise<boolean> {
    return this.database().sql.exists.get(id) !== undefined
  }

  async list(): Promise<SessionSummary[]> {
    const { connection, sql } = this.database()
    // One read transaction: a ledger caught up from the events sees the rows' snapshot.
    return connection.transaction(() => rowSummaries(this.file, sql))()
  }

  /** Candidates from the FTS5 index, in one read transaction. Never writes. */
  override async searchDocuments(
    request: SearchRequest,
    visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    const { connection, search } = this.database()
    connection.transaction(() => searchDocumentsOf(search, searchBounds(search, request), visit))()
  }

  /** Each candidate session's bounds from the FTS5 index's rowids alone. Never writes. */
  override async searchBounds(request: SearchRequest): Promise<SessionBound[]> {
    return searchBounds(this.database().search, request)
  }

  override async searchDocumentsOf(
    _request: SearchRequest,
    sessions: readonly SessionBound[],
    visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    searchDocumentsOf(this.database().search, sessions, visit)
  }

  override async turnAt(id: SessionId, seq: number): Promise<number> {
    return this.database().search.turn.get(id, seq) as number
  }

  override async idsWithPrefix(prefix: string, limit: number, except?: string): Promise<SessionId[]> {
    return idsWithPrefix(this.database().sql, prefix, limit, except)
  }

  override async summariesOf(ids: ReadonlySet<SessionId>): Promise<SessionSummary[]> {
    const { connection, sql } = this.database()
    return connection.transaction(() => {
      const rows = [...ids].map((id) => sql.one.get(id) as (SessionRow & { id: string }) | undefined)
      return rowSummaries(
        this.file,
        sql,
        rows.filter((row) => row !== undefined),
      )
    })()
  }

  /**
   * Deletes the session's rows and its lease in one write transaction; PERSISTENCE_LOCKED,
   * naming the holder, while a live process (this one included) holds the lease.
   */
  async remove(id: SessionId): Promise<void> {
    validateSessionId(id)
    const { connection, sql, lease } = this.database()
    connection
      .transaction(() => {
        if (!sql.exists.get(id)) throw notFound(id)
        const held = leaseHolder(lease, id)
        if (held?.owner && !isOwnerGone(held.owner)) {
          throw removeRefused(id, `${describeOwner(held.owner)} (database ${this.file})`)
        }
        if (held) lease.drop.run(id, held.nonce)
        unindexSession(this.db!.search, id)
        sql.deleteEvents.run(id)
        sql.images.deleteAll.run(id)
        sql.deleteSession.run(id)
      })
      .immediate()
    this.pending.delete(id)
    this.leases.delete(id)
  }

  /** Stores the image in the `session_images` blob table (durable at commit, synchronous FULL). */
  override async putImage(id: SessionId, sha256: string, data: Buffer): Promise<void> {
    validateSessionId(id)
    this.database().sql.images.put.run(id, sha256, data)
  }

  override async getImage(id: SessionId, sha256: string): Promise<Buffer | undefined> {
    validateSessionId(id)
    return this.database().sql.images.get.get(id, sha256)?.data
  }

  /** Forgets a created session that never reached the database; drops this instance's lease. */
  override async release(id: SessionId): Promise<void> {
    this.pending.delete(id)
    this.seeds.delete(id)
    const owner = this.leases.get(id)
    this.leases.delete(id)
    if (owner && this.db) this.db.lease.drop.run(id, owner.nonce)
  }

  /** Deletes a lease whose holder is gone (or, forced, any but this process's). */
  override async unlock(id: SessionId, options: { force?: boolean } = {}): Promise<WriterOwner | undefined> {
    const { connection, sql, lease } = this.database()
    return connection
      .transaction(() => {
        if (!sql.exists.get(id)) throw notFound(id)
        const held = leaseHolder(lease, id)
        if (!held) return undefined
        const alive = held.owner !== undefined && !isOwnerGone(held.owner)
        const ours = alive && held.owner?.pid === process.pid
        if (alive && (!options.force || ours)) {
          throw unlockRefused(id, describeOwner(held.owner!), `writer lease in ${this.file}`, ours)
        }
        lease.drop.run(id, held.nonce)
        return held.owner ?? { pid: 0, hostname: '?', acquiredAt: 0, nonce: held.nonce }
      })
      .immediate()
  }

  private releaseAllSync(): void {
    for (const [id, owner] of this.leases) {
      try {
        this.db?.lease.drop.run(id, owner.nonce)
      } catch {
        // Shutdown: a lease left behind names this process, which is gone once it exits.
      }
    }
    this.leases.clear()
  }

  private read(sql: Statements, id: SessionId): LoadedSession {
    const row = sql.header.get(id) as Pick<SessionRow, 'header'> | undefined
    if (!row) throw notFound(id)
    const header = parseHeaderText(this.file, id, row.header)
    const rows = sql.events.all(id) as EventRow[]
    const events = rows.map((stored, index) => {
      const event: SessionEvent = { seq: stored.seq, type: stored.type, time: stored.time, data: undefined }
      if (stored.ignorable) event.ignorable = true
      try {
        event.data = JSON.parse(stored.data)
        validateEvent(event, index)
      } catch (error) {
        throw corruptSession(this.file, id, `event ${stored.seq}: ${errorMessage(error)}`)
      }
      return event
    })
    return { header, events }
  }

  private insertEvents(sql: Statements, id: SessionId, events: readonly SessionEvent[]): void {
    updateUsage(sql.usage, id, events)
    indexEvents(this.db!.search, id, events)
    for (const event of events) {
      sql.insertEvent.run(
        id,
        event.seq,
        event.type,
        event.time,
        JSON.stringify(event.data),
        event.ignorable ? 1 : 0,
      )
    }
    updateSession(sql, id, events, this.seeds.get(id) ?? 0)
  }

  private database(): {
    connection: Database.Database
    sql: Statements
    lease: LeaseStatements
    search: SearchStatements
  } {
    if (this.db) return this.db
    assertStoragePath(this.file, 'the session database', 'file')
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 })
      closeSync(openSync(this.file, 'a', 0o600)) // SQLite gives its -wal and -shm files the same mode
      const db = new Database(this.file)
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      db.pragma('busy_timeout = 5000')
      db.exec(SCHEMA)
      db.exec(LEASE_SCHEMA)
      db.exec(IMAGES_SCHEMA)
      addMissingColumns(db)
      migrateSearchIndex(db)
      this.db = {
        connection: db,
        sql: {
          ...prepareStatements(db),
          usage: prepareUsageStatements(db),
          images: prepareImageStatements(db),
        },
        lease: prepareLeaseStatements(db),
        search: prepareSearchStatements(db),
      }
      return this.db
    } catch (error) {
      throw new DshError(
        `cannot open session database ${this.file}: ${errorMessage(error)}`,
        PersistenceErrorCode.Io,
        // A storage failure (disk full, a file-size limit, permissions), not a dsh bug: one line.
        { cause: error, userFacing: true },
      )
    }
  }
}
