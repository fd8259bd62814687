// The SQLite per-session writer lease: one row per session being written, holding
// the owner's identity (pid + process start time + boot id + host) and a nonce.
// Every function here runs inside the caller's write transaction.

import type Database from 'better-sqlite3'
import { DshError } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { describeOwner, isOwnerGone, parseWriterOwner, type WriterOwner } from '../owner.js'

export const LEASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS leases (
  session_id TEXT PRIMARY KEY,
  nonce TEXT NOT NULL,
  owner TEXT NOT NULL
);
`

export type LeaseStatements = ReturnType<typeof prepareLeaseStatements>

export function prepareLeaseStatements(db: Database.Database) {
  return {
    get: db.prepare('SELECT nonce, owner FROM leases WHERE session_id = ?'),
    put: db.prepare('INSERT OR REPLACE INTO leases (session_id, nonce, owner) VALUES (?, ?, ?)'),
    drop: db.prepare('DELETE FROM leases WHERE session_id = ? AND nonce = ?'),
  }
}

interface LeaseRow {
  nonce: string
  owner: string
}

/** The recorded holder of a session's lease, if any (an unreadable row names nobody). */
export function leaseHolder(
  sql: LeaseStatements,
  id: SessionId,
): { nonce: string; owner?: WriterOwner } | undefined {
  const row = sql.get.get(id) as LeaseRow | undefined
  if (!row) return undefined
  let owner: WriterOwner | undefined
  try {
    owner = parseWriterOwner(JSON.parse(row.owner))
  } catch {
    owner = undefined // a damaged row cannot name a live owner: it is stale
  }
  return owner ? { nonce: row.nonce, owner } : { nonce: row.nonce }
}

/**
 * Takes the lease for `owner`. A lease already ours is kept; one whose holder is
 * provably gone is stolen; one held by a live (or unknowable) holder rejects with
 * PERSISTENCE_LOCKED naming it. Call inside a write transaction.
 */
export function takeLease(sql: LeaseStatements, id: SessionId, owner: WriterOwner, where: string): void {
  const held = leaseHolder(sql, id)
  if (held && held.nonce !== owner.nonce && held.owner && !isOwnerGone(held.owner)) {
    throw leaseHeldError(id, held.owner, where)
  }
  if (held?.nonce !== owner.nonce) sql.put.run(id, owner.nonce, JSON.stringify(owner))
}

/** Checks that the lease is still `nonce`'s before a write; PERSISTENCE_LOCKED if it was stolen. */
export function assertLease(sql: LeaseStatements, id: SessionId, nonce: string, where: string): void {
  const held = leaseHolder(sql, id)
  if (held?.nonce === nonce) return
  throw new DshError(
    `session ${JSON.stringify(id)} in ${where}: this process's writer lease was ${
      held?.owner ? `taken by ${describeOwner(held.owner)}` : 'removed'
    }; nothing was written`,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

export function leaseHeldError(id: SessionId, holder: WriterOwner, where: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} in ${where} is being written by ${describeOwner(holder)}; nothing was written. ` +
      `If that process is gone, run \`dsh sessions unlock ${id}\``,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}
