// Sessions as rows of a shared PostgreSQL database: lazy creation, fenced appends in
// one statement per checkpoint batch, loading with crash repair under the writer
// lease, listing. A plain object; `PostgresSessionBackend` exposes it as a service.

import { createHash } from 'node:crypto'
import type { Pool } from 'pg'
import { DshError, errorMessage } from '../../core/errors.js'
import { parseStoredHeader } from '../../session/header-schema.js'
import { validateEvent, validateSessionId } from '../../session/session.js'
import type {
  SessionEvent,
  SessionHeader,
  SessionId,
  SessionOutcome,
  SessionStatus,
  SessionSummary,
} from '../../session/types.js'
import { copyLedger, foldUsage, ledgerOf, type UsageLedger } from '../../usage/ledger.js'
import { PersistenceErrorCode } from '../errors.js'
import type { WriterOwner } from '../owner.js'
import { checkContinuation, notFound } from '../persistence.js'
import { closersForOpenTurn, lastTurnNumber, titleFrom } from '../repair.js'
import type { LoadedSession } from '../types.js'
import { describeTarget, type ResolvedPostgresConfig } from './config.js'
import { connectAndMigrate, createPool, isConnectionError, withReconnect } from './connection.js'
import { currentOwner, type HeldLease, LeaseTable, leaseLost } from './lease.js'
import { quoteIdent } from './migrations.js'
import { caughtUpLedger, storedLedger } from './usage.js'

/** The primary key of a session: SHA-256 of its id's UTF-16 code units (any id fits). */
export function sessionKey(id: SessionId): Buffer {
  return createHash('sha256').update(Buffer.from(id, 'utf16le')).digest()
}

/** Text columns cannot hold U+0000; the exact values live in the json header. */
function textColumn(value: string): string {
  return value.replaceAll('\u0000', '\\u0000')
}

/** A stored session summary with what only a shared store knows. */
export interface PostgresSummary extends SessionSummary {
  host: string
  /** `live`: a writer holds an unexpired lease; `interrupted`: an open turn nobody is writing. */
  status: SessionStatus
}

interface EventRow {
  seq: number
  type: string
  time: number
  data: unknown
  ignorable: boolean
}

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

  constructor(readonly config: ResolvedPostgresConfig) {
    this.s = quoteIdent(config.schema)
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
    return `SELECT ${this.s}.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`
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
        throw this.translateAppendError(id, error)
      }
    })
  }

  private translateAppendError(id: SessionId, error: unknown): unknown {
    const code = (error as { code?: string }).code
    const detail = (error as { detail?: string }).detail
    if (code === 'DSH01') {
      this.forgetLost(id)
      let holder: { host?: string; pid?: number } = {}
      try {
        holder = JSON.parse(detail ?? '{}')
      } catch {
        // No holder details: the message just says the lease moved on.
      }
      return leaseLost(id, holder)
    }
    if (code === 'DSH02') {
      return new DshError(
        `session ${JSON.stringify(id)}: ${errorMessage(error)}`,
        PersistenceErrorCode.SeqMismatch,
      )
    }
    if (code === 'DSH04') return notFound(id)
    if (code === '57014') {
      return new DshError(
        `session ${JSON.stringify(id)}: the session database ${describeTarget(this.config)} did not finish the append within ${this.config.statementTimeoutMs} ms (statement timeout); nothing was written`,
        PersistenceErrorCode.Timeout,
        { cause: error, userFacing: true },
      )
    }
    return error
  }

  /** Read-only: the stored header and events, as they are (an open turn stays open). No lease. */
  async load(id: SessionId): Promise<LoadedSession> {
    const pool = await this.db()
    const stored = await withReconnect(this.config, () => this.read(pool, id))
    return { header: stored.header, events: stored.rows.map((row, index) => this.toEvent(id, row, index)) }
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
      const stored = await withReconnect(this.config, () => this.read(pool, id))
      this.seeds.set(id, stored.header.seedLength ?? 0)
      const events = stored.rows.map((row, index) => this.toEvent(id, row, index))
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

  private async read(pool: Pool, id: SessionId) {
    const key = sessionKey(id)
    const sessions = await pool.query<{ header: unknown }>(
      `SELECT header FROM ${this.s}.sessions WHERE key = $1`,
      [key],
    )
    const row = sessions.rows[0]
    if (!row) throw notFound(id)
    const { rows } = await pool.query<EventRow>(
      `SELECT seq, type, time, data, ignorable FROM ${this.s}.events WHERE session_key = $1 ORDER BY seq`,
      [key],
    )
    return { header: this.parseHeader(id, row.header), rows }
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
    return rows.map((row, index) => this.toEvent(id, row, fromSeq + index))
  }

  /** Every stored session with its host and status. */
  async list(): Promise<PostgresSummary[]> {
    const pool = await this.db()
    const { rows } = await withReconnect(this.config, () =>
      pool.query<{
        key: Buffer
        header: unknown
        title: string | null
        event_count: number
        last_activity: number
        turns: number
        host: string
        open_turn: boolean
        usage: unknown
        usage_events: number
        live: boolean
        last_reason: string | null
      }>(
        // The last turn's end reason: a backward walk of the (session_key, seq) key, which
        // stops at the last turn/end — the final event or close to it.
        `SELECT s.key, s.header, s.title, s.event_count, s.last_activity, s.turns, s.host, s.open_turn,
                s.usage, s.usage_events,
                coalesce(l.nonce IS NOT NULL AND l.expires_at > now(), false) AS live,
                CASE WHEN s.open_turn THEN NULL ELSE
                  (SELECT e.data->>'reason' FROM ${this.s}.events e
                    WHERE e.session_key = s.key AND e.type = 'turn/end' ORDER BY e.seq DESC LIMIT 1)
                END AS last_reason
           FROM ${this.s}.sessions s LEFT JOIN ${this.s}.leases l ON l.session_key = s.key`,
      ),
    )
    const summaries: PostgresSummary[] = []
    for (const row of rows) {
      const header = this.parseHeader(undefined, row.header)
      const summary: PostgresSummary = {
        header,
        eventCount: row.event_count,
        lastActivity: row.last_activity,
        turns: row.turns,
        host: row.host,
        status: row.live ? 'live' : row.open_turn ? 'interrupted' : 'idle',
        usage: await withReconnect(this.config, () => caughtUpLedger(pool, this.s, row.key, row)),
      }
      if (row.title !== null) summary.title = row.title
      if (row.open_turn) summary.outcome = 'open'
      else if (row.last_reason !== null) summary.outcome = row.last_reason as SessionOutcome
      summaries.push(summary)
    }
    return summaries
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

  private toEvent(id: SessionId, row: EventRow, index: number): SessionEvent {
    const event: SessionEvent = { seq: row.seq, type: row.type, time: row.time, data: row.data }
    if (row.ignorable) event.ignorable = true
    try {
      validateEvent(event, index)
    } catch (error) {
      throw this.corrupt(id, `event ${row.seq}: ${errorMessage(error)}`)
    }
    return event
  }

  private parseHeader(id: SessionId | undefined, value: unknown): SessionHeader {
    const parsed = parseStoredHeader(value)
    if ('problem' in parsed) throw this.corrupt(id ?? '(unknown)', `invalid header (${parsed.problem})`)
    return parsed.header
  }

  private corrupt(id: SessionId, reason: string): DshError {
    return new DshError(
      `session ${JSON.stringify(id)} in ${describeTarget(this.config)} schema ${this.config.schema} is corrupt: ${reason}`,
      PersistenceErrorCode.Corrupt,
      { userFacing: true },
    )
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

/** Parameters of `append_events` for one batch. */
function appendParams(
  lease: HeldLease,
  events: readonly SessionEvent[],
  seedLength: number,
  usage: UsageLedger,
): unknown[] {
  let open: boolean | null = null
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/start' || type === 'turn/end') {
      open = type === 'turn/start'
      break
    }
  }
  const title = titleFrom(events, seedLength)
  const n = events.length
  const seqs = new Array<number>(n)
  const types = new Array<string>(n)
  const times = new Array<number>(n)
  const data = new Array<string>(n)
  const ignorable = new Array<boolean>(n)
  for (let i = 0; i < n; i++) {
    const event = events[i]!
    seqs[i] = event.seq
    types[i] = event.type
    times[i] = event.time
    data[i] = JSON.stringify(event.data)
    ignorable[i] = event.ignorable === true
  }
  return [
    lease.key,
    lease.token,
    seqs,
    types,
    times,
    data,
    ignorable,
    title === undefined ? null : textColumn(title),
    lastTurnNumber(events),
    open,
    JSON.stringify(usage),
  ]
}
