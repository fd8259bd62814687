// The usage ledger in a session's row (`usage`, and `usage_events`: how many of its events
// it covers), stored by the version-2 `append_events`. A version-1 writer leaves it behind
// and a row stored before version 2 has none: both are caught up from the events, read-only.

import type { Pool } from 'pg'
import type { SessionId } from '../../session/types.js'
import { emptyLedger, foldUsage, type UsageLedger } from '../../usage/ledger.js'
import { parseLedger } from '../../usage/ledger-schema.js'
import { USAGE_EVENT_TYPES_SQL } from '../../usage/totals.js'
import { notFound } from '../persistence.js'

export interface UsageRow {
  usage: unknown
  usage_events: number
  event_count: number
}

/** The ledger of session `id`'s stored events (its writer continues it). NotFound when it is not stored. */
export async function storedLedger(
  pool: Pool,
  schema: string,
  id: SessionId,
  key: Buffer,
): Promise<UsageLedger> {
  const { rows } = await pool.query<UsageRow>(
    `SELECT usage, usage_events, event_count FROM ${schema}.sessions WHERE key = $1`,
    [key],
  )
  if (!rows[0]) throw notFound(id)
  return caughtUpLedger(pool, schema, key, rows[0])
}

/**
 * A row's ledger covering its first `event_count` events: the stored one, folded on with the
 * events it lacks, or folded from every event when it has none (or none readable). Only the
 * event types the fold reads are fetched. `schema` is quoted.
 */
export async function caughtUpLedger(
  pool: Pool,
  schema: string,
  key: Buffer,
  row: UsageRow,
): Promise<UsageLedger> {
  const stored = row.usage === null ? undefined : parseLedger(row.usage)
  const from = stored ? row.usage_events : 0
  if (stored && from === row.event_count) return stored
  const { rows } = await pool.query<{ seq: number; type: string; time: number; data: unknown }>(
    `SELECT seq, type, time, data FROM ${schema}.events
      WHERE session_key = $1 AND seq >= $2 AND seq < $3
        AND type IN ${USAGE_EVENT_TYPES_SQL} ORDER BY seq`,
    [key, from, row.event_count],
  )
  return foldUsage(stored ?? emptyLedger(), rows)
}
