// The writer lease of one session: a row (host, pid, process start, nonce, expiry)
// taken in a transaction, renewed by heartbeat, released at close. Its token only
// grows; every append carries it and the database refuses a stale one (fencing).

import { randomUUID } from 'node:crypto'
import type { Pool, PoolClient } from 'pg'
import { DshError } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import type { WriterOwner } from '../owner.js'
import { notFound, removeRefused, unlockRefused } from '../persistence.js'
import { ownerIsGone, processStart } from './owner.js'

/** A lease this process holds. */
export interface HeldLease {
  key: Buffer
  token: number
  nonce: string
}

/** Who this process is, as written into lease rows. */
export interface LeaseOwner {
  host: string
  pid: number
  processStart: string | null
}

export function currentOwner(host: string): LeaseOwner {
  return { host, pid: process.pid, processStart: processStart(process.pid) ?? null }
}

interface LeaseRow {
  token: number | null
  host: string | null
  pid: number | null
  process_start: string | null
  nonce: string | null
  expired: boolean | null
  remaining_ms: number | null
}

export class LeaseTable {
  constructor(
    private readonly pool: Pool,
    private readonly s: string,
    private readonly owner: LeaseOwner,
    private readonly leaseMs: number,
  ) {}

  /**
   * Takes the session's lease. A free, released or expired lease is taken (token + 1), and
   * so is one whose owner process is certainly gone (same host only); a lease a live
   * process holds rejects with PERSISTENCE_LOCKED naming its host and process.
   */
  async acquire(id: SessionId, key: Buffer): Promise<HeldLease> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      const row = await this.lockedLease(client, id, key)
      const nonce = randomUUID()
      const values = [key, this.owner.host, this.owner.pid, this.owner.processStart, nonce, this.leaseMs]
      let token: number
      if (row.token === null) {
        token = 1
        await client.query(
          `INSERT INTO ${this.s}.leases (session_key, token, host, pid, process_start, nonce, acquired_at, expires_at)
           VALUES ($1, 1, $2, $3, $4, $5, now(), now() + make_interval(secs => $6 / 1000.0))`,
          values,
        )
      } else {
        const free =
          row.nonce === null ||
          row.expired === true ||
          ownerIsGone(
            { host: row.host ?? '', pid: row.pid ?? 0, processStart: row.process_start },
            this.owner.host,
          )
        if (!free) throw busy(id, row)
        token = row.token + 1
        await client.query(
          `UPDATE ${this.s}.leases SET token = $7, host = $2, pid = $3, process_start = $4, nonce = $5,
                  acquired_at = now(), expires_at = now() + make_interval(secs => $6 / 1000.0)
            WHERE session_key = $1`,
          [...values, token],
        )
      }
      await client.query(`UPDATE ${this.s}.sessions SET host = $2 WHERE key = $1`, [key, this.owner.host])
      await client.query('COMMIT')
      return { key, token, nonce }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {}) // a lost connection rolls back on the server
      throw error
    } finally {
      client.release()
    }
  }

  /** Lease row values for a brand-new session (token 1), inserted with its header. */
  firstLeaseValues(key: Buffer): { lease: HeldLease; params: unknown[] } {
    const nonce = randomUUID()
    return {
      lease: { key, token: 1, nonce },
      params: [key, this.owner.host, this.owner.pid, this.owner.processStart, nonce, this.leaseMs],
    }
  }

  /** SQL inserting the first lease of a session; parameters as `firstLeaseValues`. */
  get firstLeaseSql(): string {
    return `INSERT INTO ${this.s}.leases (session_key, token, host, pid, process_start, nonce, acquired_at, expires_at)
            VALUES ($1, 1, $2, $3, $4, $5, now(), now() + make_interval(secs => $6 / 1000.0))`
  }

  /**
   * Frees the session's lease if its holder is gone or its lease expired (or `force`, for
   * any holder but this process). Resolves with the former holder, or undefined if none.
   */
  async unlock(id: SessionId, key: Buffer, force: boolean): Promise<WriterOwner | undefined> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      const { rows } = await client.query<LeaseRow & { acquired_ms: number | null; exists: boolean }>(
        `SELECT l.token, l.host, l.pid, l.process_start, l.nonce,
                l.expires_at <= now() AS expired,
                (extract(epoch FROM l.expires_at - now()) * 1000)::float8 AS remaining_ms,
                (extract(epoch FROM l.acquired_at) * 1000)::float8 AS acquired_ms
           FROM ${this.s}.sessions s LEFT JOIN ${this.s}.leases l ON l.session_key = s.key
          WHERE s.key = $1 FOR UPDATE OF s`,
        [key],
      )
      const row = rows[0]
      if (!row) throw notFound(id)
      if (row.nonce === null) {
        await client.query('COMMIT')
        return undefined
      }
      const holder = { host: row.host ?? '', pid: row.pid ?? 0, processStart: row.process_start }
      const gone = row.expired === true || ownerIsGone(holder, this.owner.host)
      const ours = holder.host === this.owner.host && holder.pid === this.owner.pid
      if (!gone && (!force || ours)) {
        const seconds = Math.max(0, Math.ceil((row.remaining_ms ?? 0) / 1000))
        const where = `its lease expires in ${seconds}s unless renewed`
        throw unlockRefused(id, `process ${row.pid} on ${row.host}`, where, ours)
      }
      await client.query(
        `UPDATE ${this.s}.leases SET nonce = NULL, expires_at = NULL WHERE session_key = $1`,
        [key],
      )
      await client.query('COMMIT')
      return {
        pid: holder.pid,
        hostname: holder.host,
        acquiredAt: Math.round(row.acquired_ms ?? 0),
        nonce: row.nonce,
        ...(row.process_start !== null ? { startTime: row.process_start } : {}),
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {}) // a lost connection rolls back on the server
      throw error
    } finally {
      client.release()
    }
  }

  /**
   * Deletes a session (events and lease go by cascade) unless a live writer holds its
   * lease: one that has not expired and whose process is not provably gone, this one
   * included (PERSISTENCE_LOCKED naming it).
   */
  async removeSession(id: SessionId, key: Buffer): Promise<void> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      const row = await this.lockedLease(client, id, key)
      if (row.nonce !== null && row.expired !== true) {
        const holder = { host: row.host ?? '', pid: row.pid ?? 0, processStart: row.process_start }
        if (!ownerIsGone(holder, this.owner.host)) {
          const seconds = Math.max(0, Math.ceil((row.remaining_ms ?? 0) / 1000))
          throw removeRefused(
            id,
            `process ${row.pid} on ${row.host} (its lease expires in ${seconds}s unless renewed)`,
          )
        }
      }
      await client.query(`DELETE FROM ${this.s}.sessions WHERE key = $1`, [key])
      await client.query(`DELETE FROM ${this.s}.session_images WHERE session_key = $1`, [key])
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {}) // a lost connection rolls back on the server
      throw error
    } finally {
      client.release()
    }
  }

  /** Renews the given leases; resolves with the keys (hex) of those that were no longer ours. */
  async renew(leases: readonly HeldLease[]): Promise<Set<string>> {
    if (leases.length === 0) return new Set()
    const { rows } = await this.pool.query<{ key: Buffer }>(
      `UPDATE ${this.s}.leases l SET expires_at = now() + make_interval(secs => $4 / 1000.0)
         FROM unnest($1::bytea[], $2::bigint[], $3::uuid[]) AS h(key, token, nonce)
        WHERE l.session_key = h.key AND l.token = h.token AND l.nonce = h.nonce
        RETURNING l.session_key AS key`,
      [
        leases.map((lease) => lease.key),
        leases.map((lease) => lease.token),
        leases.map((lease) => lease.nonce),
        this.leaseMs,
      ],
    )
    const renewed = new Set(rows.map((row) => row.key.toString('hex')))
    return new Set(leases.map((lease) => lease.key.toString('hex')).filter((key) => !renewed.has(key)))
  }

  /** Gives a lease up if it is still ours; the row and its token stay. */
  async release(lease: HeldLease): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.s}.leases SET nonce = NULL, expires_at = NULL
        WHERE session_key = $1 AND token = $2 AND nonce = $3`,
      [lease.key, lease.token, lease.nonce],
    )
  }

  /** The session's lease (nulls when none), its session row locked until commit; NOT_FOUND without it. */
  private async lockedLease(client: PoolClient, id: SessionId, key: Buffer): Promise<LeaseRow> {
    const { rows } = await client.query<LeaseRow>(
      `SELECT l.token, l.host, l.pid, l.process_start, l.nonce,
              l.expires_at <= now() AS expired,
              (extract(epoch FROM l.expires_at - now()) * 1000)::float8 AS remaining_ms
         FROM ${this.s}.sessions s LEFT JOIN ${this.s}.leases l ON l.session_key = s.key
        WHERE s.key = $1 FOR UPDATE OF s`,
      [key],
    )
    const row = rows[0]
    if (!row) throw notFound(id)
    return row
  }
}

function busy(id: SessionId, row: LeaseRow): DshError {
  const seconds = Math.max(0, Math.ceil((row.remaining_ms ?? 0) / 1000))
  return new DshError(
    `session ${JSON.stringify(id)} is being written by process ${row.pid} on ${row.host} (its lease expires in ${seconds}s unless renewed); nothing was written`,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

/** The error for an append the database refused because the lease moved on. */
export function leaseLost(
  id: SessionId,
  holder: { host?: string | null; pid?: number | null } = {},
): DshError {
  const now = holder.host ? ` (now held by process ${holder.pid} on ${holder.host})` : ''
  return new DshError(
    `session ${JSON.stringify(id)}: this process lost its writer lease${now}; the events of this checkpoint were not written`,
    PersistenceErrorCode.LeaseLost,
    { userFacing: true },
  )
}
