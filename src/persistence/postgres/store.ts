// Sessions as rows of a shared PostgreSQL database: lazy creation, fenced appends in
// one statement per checkpoint batch, loading with crash repair under the writer
// lease, listing. A plain object; `PostgresSessionBackend` exposes it as a service.

import type { Pool } from 'pg'
import { DshError } from '../../core/errors.js'
import { validateSessionId } from '../../session/session.js'
import type { SessionEvent, SessionHeader, SessionId } from '../../session/types.js'
import { copyLedger, foldUsage, ledgerOf, type UsageLedger } from '../../usage/ledger.js'
import { PersistenceErrorCode } from '../errors.js'
import type { WriterOwner } from '../owner.js'
import { checkContinuation, notFound } from '../persistence.js'
import { closersForOpenTurn } from '../repair.js'
import type { LoadedSession } from '../types.js'
import { appendParams, textColumn } from './append-params.js'
import type { ResolvedPostgresConfig } from './config.js'
import { connectAndMigrate, createPool, isConnectionError, withReconnect } from './connection.js'
import { currentOwner, type HeldLease, LeaseTable, leaseLost } from './lease.js'
import { listSummaries, type PostgresSummary } from './list.js'
import { quoteIdent } from './migrations.js'
import { appendError, type EventRow, parseHeader, readSession, sessionKey, toEvent } from './rows.js'
import { backfillSearch } from './search.js'
import { PostgresSearchReader } from './search-reader.js'
import { storedLedger } from './usage.js'

export { sessionKey }

export class PostgresSessionStore {
  readonly s: string
  private pool: Pool | undefined
  private leases: LeaseTable | undefined
  private opening: Promise<void> | undefined
  private readonly pending = new Map<SessionId, SessionHeader>()
  private readonly held = new Map<SessionId, HeldLease>()
  /** Sessions whose lease this process held and lost: it never takes them again by itself. */
  private readonly lost = new Set<SessionId>()
  private readonly queues = new Map<SessionId, Promise<unknown>>()
  /** Seed lengths of the sessions this process writes: a fork's title skips its seed. */
  private readonly seeds = new Map<SessionId, number>()
  /** Usage ledgers of the stored events of sessions this process writes (see `storedUsage`). */
  private readonly ledgers = new Map<SessionId, UsageLedger>()
  private heartbeat: NodeJS.Timeout | undefined
  /** The background fill of older rows' search column, started by the first append. */
  private backfill: Promise<unknown> | undefined
  private closing = false

  /** The history search's reads. */
  readonly searching: PostgresSearchReader

  constructor(readonly config: ResolvedPostgresConfig) {
    this.s = quoteIdent(config.schema)
    this.searching = new PostgresSearchReader(config, this.s, () => this.db())
  }

  /** Connects and migrates once; a failure is reported and retried on the next call. */
  ready(): Promise<void> {
    this.opening ??= this.connect().catch((error: unknown) => {
      this.opening = undefined
      throw error
    })
    return this.opening
  }

  private async connect(): Promise<void> {
    const pool = await createPool(this.config)
    try {
      await connectAndMigrate(pool, this.config)
    } catch (error) {
      await pool.end().catch(() => {}) // nothing was opened that needs a clean goodbye
      throw error
    }
    this.pool = pool
    this.leases = new LeaseTable(pool, this.s, currentOwner(this.config.hostName), this.config.leaseMs)
    if (this.config.heartbeatMs > 0) {
      this.heartbeat = setInterval(() => void this.renewLeases(), this.config.heartbeatMs)
      this.heartbeat.unref()
    }
  }

  /** The pool, once ready. */
  async db(): Promise<Pool> {
    await this.ready()
    return this.pool!
  }

  async create(header: SessionHeader): Promise<void> {
    validateSessionId(header.id)
    if (await this.exists(header.id)) throw alreadyExists(header.id)
    this.pending.set(header.id, structuredClone(header))
    this.seeds.set(header.id, header.seedLength ?? 0)
  }

  async exists(id: SessionId): Promise<boolean> {
    const pool = await this.db()
    const { rowCount } = await withReconnect(this.config, () =>
      pool.query(`SELECT 1 FROM ${this.s}.sessions WHERE key = $1`, [sessionKey(id)]),
    )
    return (rowCount ?? 0) > 0
  }

  /**
   * Appends one checkpoint batch in one transaction, durable at COMMIT. The first append
   * stores the header and takes the lease; later ones take it if this process does not
   * hold it (PERSISTENCE_LOCKED when a live writer does). Refused with
   * PERSISTENCE_LEASE_LOST when another writer took the lease over meanwhile.
   */
  append(id: SessionId, events: SessionEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve()
    return this.serialized(id, async () => {
      await this.ready()
      // A writing host fills the search column of rows from before version 4 (or from
      // older writers); a reader never writes, and until then such rows are still found.
      this.backfill ??= backfillSearch(this.pool!, this.s, () => this.closing).catch(() => {
        // Best effort: unfilled rows stay searchable as candidates; the next writer goes on.
      })
      checkContinuation(id, events[0]!.seq, events)
      const header = this.pending.get(id)
      if (header) {
        checkContinuation(id, 0, events)
        const usage = ledgerOf(events)
        await withReconnect(this.config, () => this.insertNew(header, events, usage))
        this.pending.delete(id)
        this.ledgers.set(id, usage)
        return
      }
      let lease = this.held.get(id)
      if (!lease && this.lost.has(id)) throw await this.lostLease(id)
      if (!lease) {
        lease = await withReconnect(this.config, () => this.leases!.acquire(id, sessionKey(id)))
        this.held.set(id, lease)
      }
      // Under the lease nobody else appends: the stored ledger is the one to continue.
      const known =
        this.ledgers.get(id) ??
        (await withReconnect(this.config, () => storedLedger(this.pool!, this.s, id, lease.key)))
      const usage = foldUsage(copyLedger(known), events)
      await this.appendFenced(id, lease, events, usage)
      this.ledgers.set(id, usage)
    })
  }

  private async insertNew(header: SessionHeader, events: SessionEvent[], usage: UsageLedger): Promise<void> {
    const client = await this.pool!.connect()
    const key = sessionKey(header.id)
    const { lease, params } = this.leases!.firstLeaseValues(key)
    try {
      await client.query('BEGIN')
      const inserted = await client.query(
        `INSERT INTO ${this.s}.sessions (key, id, header, created_at, cwd, host, last_activity)
         VALUES ($1, $2, $3, $4, $5, $6, $4) ON CONFLICT (key) DO NOTHING`,
        [
          key,
          textColumn(header.id),
          JSON.stringify(header),
          header.createdAt,
          header.cwd === undefined ? null : textColumn(header.cwd),
          this.config.hostName,
        ],
      )
      if (inserted.rowCount === 0) throw alreadyExists(header.id)
      await client.query(this.leases!.firstLeaseSql, params)
      await client.query(this.appendSql, appendParams(lease, events, header.seedLength ?? 0, usage))
      await client.query('COMMIT')
      this.held.set(header.id, lease)
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {}) // a lost connection rolls back on the server
      throw error
    } finally {
      client.release()
    }
  }

  private get appendSql(): string {
    return `SELECT ${this.s}.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
  }

  /**
   * The fenced append, reconnecting while the connection is gone. After a lost
   * connection the batch may or may not have committed: the stored tail and the lease
   * say which, so a retry never writes a batch twice.
   */
  private async appendFenced(
    id: SessionId,
    lease: HeldLease,
    events: SessionEvent[],
    usage: UsageLedger,
  ): Promise<void> {
    const first = events[0]!.seq
    const end = first + events.length
    let retrying = false
    await withReconnect(this.config, async () => {
      if (retrying) {
        const { rows } = await this.pool!.query<{ event_count: number; token: number; nonce: string | null }>(
          `SELECT s.event_count, l.token, l.nonce FROM ${this.s}.sessions s
             JOIN ${this.s}.leases l ON l.session_key = s.key WHERE s.key = $1`,
          [lease.key],
        )
        const row = rows[0]
        if (row && row.event_count === end && row.token === lease.token) return // it had committed
        if (!row || row.token !== lease.token || row.nonce !== lease.nonce) {
          this.forgetLost(id)
          throw await this.lostLease(id)
        }
      }
      retrying = true
      try {
        await this.pool!.query(this.appendSql, appendParams(lease, events, this.seeds.get(id) ?? 0, usage))
      } catch (error) {
        throw appendError(this.config, id, error, () => this.forgetLost(id))
      }
    })
  }

  /** Read-only: the stored header and events, as they are (an open turn stays open). No lease. */
  async load(id: SessionId): Promise<LoadedSession> {
    const pool = await this.db()
    const stored = await withReconnect(this.config, () => readSession(pool, this.s, this.config, id))
    return {
      header: stored.header,
      events: stored.rows.map((row, index) => toEvent(this.config, id, row, index)),
    }
  }

  /**
   * Opens a stored session for writing: takes its lease (PERSISTENCE_LOCKED, naming the
   * holder, while a live process holds it), then closes a crashed open turn durably with
   * synthetic events. The lease is kept for later appends until `release`.
   */
  open(id: SessionId): Promise<LoadedSession> {
    return this.serialized(id, async () => {
      const pool = await this.db()
      if (this.held.has(id)) {
        throw new DshError(
          `session ${JSON.stringify(id)} is already open for writing in this process; nothing was written`,
          PersistenceErrorCode.Locked,
          { userFacing: true },
        )
      }
      {
        const stored = await withReconnect(this.config, () =>
          pool.query(`SELECT 1 FROM ${this.s}.sessions WHERE key = $1`, [sessionKey(id)]),
        )
        if (stored.rowCount === 0) throw notFound(id)
        this.held.set(id, await withReconnect(this.config, () => this.leases!.acquire(id, sessionKey(id))))
        this.lost.delete(id)
      }
      // Nobody else can append now: this is the final tail.
      const stored = await withReconnect(this.config, () => readSession(pool, this.s, this.config, id))
      this.seeds.set(id, stored.header.seedLength ?? 0)
      const events = stored.rows.map((row, index) => toEvent(this.config, id, row, index))
      const closers = closersForOpenTurn(events)
      const usage = ledgerOf([...events, ...closers])
      if (closers.length > 0) await this.appendFenced(id, this.held.get(id)!, closers, usage)
      this.ledgers.set(id, usage)
      return { header: stored.header, events: [...events, ...closers] }
    })
  }

  /**
   * `dsh sessions unlock`: frees a lease whose holder is gone or expired. Rejects with
   * PERSISTENCE_LOCKED while the holder may run, unless `force` (never this process's own).
   * A freed lease fences its former holder: its next append is refused.
   */
  async unlock(id: SessionId, force: boolean): Promise<WriterOwner | undefined> {
    await this.ready()
    return withReconnect(this.config, () => this.leases!.unlock(id, sessionKey(id), force))
  }

  /** Deletes a stored session unless a live writer holds it (see `LeaseTable.removeSession`). */
  remove(id: SessionId): Promise<void> {
    return this.serialized(id, async () => {
      await this.ready()
      await withReconnect(this.config, () => this.leases!.removeSession(id, sessionKey(id)))
      this.pending.delete(id)
      this.lost.delete(id)
    })
  }

  /** Stored events from `fromSeq` on, read only (for followers). Empty when there are none yet. */
  async eventsFrom(id: SessionId, fromSeq: number): Promise<SessionEvent[]> {
    const pool = await this.db()
    const { rows } = await withReconnect(this.config, () =>
      pool.query<EventRow>(
        `SELECT seq, type, time, data, ignorable FROM ${this.s}.events
          WHERE session_key = $1 AND seq >= $2 ORDER BY seq`,
        [sessionKey(id), fromSeq],
      ),
    )
    return rows.map((row, index) => toEvent(this.config, id, row, fromSeq + index))
  }

  /** Every stored session with its host and status. */
  async list(): Promise<PostgresSummary[]> {
    const pool = await this.db()
    return listSummaries(pool, this.s, this.config, (value) => parseHeader(this.config, undefined, value))
  }

  /** Summaries of the given sessions only (a search's hits). */
  async summariesOf(ids: ReadonlySet<SessionId>): Promise<PostgresSummary[]> {
    const pool = await this.db()
    return listSummaries(
      pool,
      this.s,
      this.config,
      (value) => parseHeader(this.config, undefined, value),
      [...ids].map(sessionKey),
    )
  }

  /** Fills the search column of rows an older writer (or the time before version 4) left without. */
  async backfillSearch(): Promise<number> {
    const pool = await this.db()
    return backfillSearch(pool, this.s, () => this.closing)
  }

  /** Forgets a never-stored session and gives up this process's lease on it. */
  release(id: SessionId): Promise<void> {
    return this.serialized(id, async () => {
      this.pending.delete(id)
      this.seeds.delete(id)
      this.ledgers.delete(id)
      const lease = this.held.get(id)
      this.held.delete(id)
      if (lease && this.pool) {
        await this.leases!.release(lease).catch((error: unknown) => {
          // The lease expires by itself; a lost connection must not fail a close.
          if (!isConnectionError(error)) throw error
        })
      }
    })
  }

  /** Releases every lease and closes the pool. */
  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat)
    this.closing = true
    await this.backfill
    await Promise.allSettled([...this.held.keys(), ...this.pending.keys()].map((id) => this.release(id)))
    const pool = this.pool
    this.pool = undefined
    this.opening = undefined
    await pool?.end().catch(() => {}) // closing: a broken connection has nothing left to flush
  }

  private async renewLeases(): Promise<void> {
    if (!this.leases || this.held.size === 0) return
    const entries = [...this.held.entries()]
    try {
      const lost = await this.leases.renew(entries.map(([, lease]) => lease))
      for (const [id, lease] of entries) {
        if (lost.has(lease.key.toString('hex')) && this.held.get(id) === lease) this.forgetLost(id)
      }
    } catch {
      // Unreachable now: the next beat retries, and appends are fenced by the token anyway.
    }
  }

  /** A lease that moved on: drop it, and refuse later appends of this session in this process. */
  private forgetLost(id: SessionId): void {
    this.held.delete(id)
    this.ledgers.delete(id)
    this.lost.add(id)
  }

  /** The lease-lost error, naming the lease's present holder when the database can say. */
  private async lostLease(id: SessionId): Promise<DshError> {
    try {
      const { rows } = await this.pool!.query<{ host: string | null; pid: number | null }>(
        `SELECT host, pid FROM ${this.s}.leases WHERE session_key = $1 AND nonce IS NOT NULL`,
        [sessionKey(id)],
      )
      return leaseLost(id, rows[0] ?? {})
    } catch {
      // Unreachable now: the message just says the lease moved on.
      return leaseLost(id)
    }
  }

  private serialized<T>(id: SessionId, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve()
    const next = previous.then(task, task)
    const settled = next.catch(() => {})
    this.queues.set(id, settled)
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id)
    })
    return next
  }
}

function alreadyExists(id: SessionId): DshError {
  return new DshError(`session ${JSON.stringify(id)} already exists`, PersistenceErrorCode.AlreadyExists, {
    userFacing: true,
  })
}
