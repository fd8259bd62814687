// Reading a PostgreSQL schema's rows back as sessions: the key of an id, the header and
// events of one session (validated, corruption named with the database), and the
// translation of `append_events`'s own error codes into dsh errors.

import { createHash } from 'node:crypto'
import type { Pool } from 'pg'
import { DshError, errorMessage } from '../../core/errors.js'
import { parseStoredHeader } from '../../session/header-schema.js'
import { validateEvent } from '../../session/session.js'
import type { SessionEvent, SessionHeader, SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { notFound } from '../persistence.js'
import { describeTarget, type ResolvedPostgresConfig } from './config.js'
import { leaseLost } from './lease.js'

/** The primary key of a session: SHA-256 of its id's UTF-16 code units (any id fits). */
export function sessionKey(id: SessionId): Buffer {
  return createHash('sha256').update(Buffer.from(id, 'utf16le')).digest()
}

export interface EventRow {
  seq: number
  type: string
  time: number
  data: unknown
  ignorable: boolean
}

/** The stored header and event rows of one session; NotFound when absent. */
export async function readSession(pool: Pool, s: string, config: ResolvedPostgresConfig, id: SessionId) {
  const key = sessionKey(id)
  const sessions = await pool.query<{ header: unknown }>(`SELECT header FROM ${s}.sessions WHERE key = $1`, [
    key,
  ])
  const row = sessions.rows[0]
  if (!row) throw notFound(id)
  const { rows } = await pool.query<EventRow>(
    `SELECT seq, type, time, data, ignorable FROM ${s}.events WHERE session_key = $1 ORDER BY seq`,
    [key],
  )
  return { header: parseHeader(config, id, row.header), rows }
}

export function toEvent(
  config: ResolvedPostgresConfig,
  id: SessionId,
  row: EventRow,
  index: number,
): SessionEvent {
  const event: SessionEvent = { seq: row.seq, type: row.type, time: row.time, data: row.data }
  if (row.ignorable) event.ignorable = true
  try {
    validateEvent(event, index)
  } catch (error) {
    throw corrupt(config, id, `event ${row.seq}: ${errorMessage(error)}`)
  }
  return event
}

export function parseHeader(
  config: ResolvedPostgresConfig,
  id: SessionId | undefined,
  value: unknown,
): SessionHeader {
  const parsed = parseStoredHeader(value)
  if ('problem' in parsed) throw corrupt(config, id ?? '(unknown)', `invalid header (${parsed.problem})`)
  return parsed.header
}

function corrupt(config: ResolvedPostgresConfig, id: SessionId, reason: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} in ${describeTarget(config)} schema ${config.schema} is corrupt: ${reason}`,
    PersistenceErrorCode.Corrupt,
    { userFacing: true },
  )
}

/**
 * The dsh error for a failed `append_events` (DSH01 lease moved on — `onLost` is called —,
 * DSH02 seq mismatch, DSH04 not stored, 57014 statement timeout); anything else as it is.
 */
export function appendError(
  config: ResolvedPostgresConfig,
  id: SessionId,
  error: unknown,
  onLost: () => void,
): unknown {
  const code = (error as { code?: string }).code
  const detail = (error as { detail?: string }).detail
  if (code === 'DSH01') {
    onLost()
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
      `session ${JSON.stringify(id)}: the session database ${describeTarget(config)} did not finish the append within ${config.statementTimeoutMs} ms (statement timeout); nothing was written`,
      PersistenceErrorCode.Timeout,
      { cause: error, userFacing: true },
    )
  }
  return error
}
