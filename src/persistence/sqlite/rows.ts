// Reading a SQLite session row: its header (a corrupt one is a one-line error naming the
// database) and its listing summary.

import { DshError, errorMessage } from '../../core/errors.js'
import { parseStoredHeader } from '../../session/header-schema.js'
import type { SessionHeader, SessionId, SessionOutcome, SessionSummary } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import type { SessionRow, Statements } from './schema.js'
import { storedLedger } from './usage.js'

export function corruptSession(file: string, id: SessionId, reason: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} in ${file} is corrupt: ${reason}`,
    PersistenceErrorCode.Corrupt,
    {
      userFacing: true,
    },
  )
}

export function parseHeaderText(file: string, id: SessionId, text: string): SessionHeader {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw corruptSession(file, id, `header is not JSON (${errorMessage(error)})`)
  }
  const parsed = parseStoredHeader(value)
  if ('problem' in parsed) throw corruptSession(file, id, `invalid header (${parsed.problem})`)
  return parsed.header
}

/** The listing summaries of `rows` (every session's by default). */
export function rowSummaries(
  file: string,
  sql: Statements,
  rows = sql.list.all() as (SessionRow & { id: string })[],
): SessionSummary[] {
  return rows.map((row) => {
    const summary: SessionSummary = {
      header: parseHeaderText(file, row.id, row.header),
      eventCount: row.event_count,
      lastActivity: row.last_activity,
      turns: row.turns,
      usage: storedLedger(sql.usage, row.id, row),
    }
    if (row.title !== null) summary.title = row.title
    if (row.outcome !== null) summary.outcome = row.outcome as SessionOutcome
    return summary
  })
}
