// Session summaries from the sessions rows of a PostgreSQL schema: listing, and the
// summaries of a search's hits, with each session's host and status.

import type { Pool } from 'pg'
import type {
  SessionHeader,
  SessionId,
  SessionOutcome,
  SessionStatus,
  SessionSummary,
} from '../../session/types.js'
import { matchesPrefix, prefixUpperBound } from '../persistence.js'
import type { ResolvedPostgresConfig } from './config.js'
import { withReconnect } from './connection.js'
import { caughtUpLedger } from './usage.js'

/** A stored session summary with what only a shared store knows. */
export interface PostgresSummary extends SessionSummary {
  host: string
  /** `live`: a writer holds an unexpired lease; `interrupted`: an open turn nobody is writing. */
  status: SessionStatus
}

interface SummaryRow {
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
}

/** Summaries of every session, or of those with the given keys. */
export async function listSummaries(
  pool: Pool,
  s: string,
  config: ResolvedPostgresConfig,
  parseHeader: (value: unknown) => SessionHeader,
  keys?: Buffer[],
): Promise<PostgresSummary[]> {
  const { rows } = await withReconnect(config, () =>
    pool.query<SummaryRow>(
      // The last turn's end reason: a backward walk of the (session_key, seq) key, which
      // stops at the last turn/end — the final event or close to it.
      `SELECT s.key, s.header,
              coalesce((SELECT e.data->>'title' FROM ${s}.events e
                  WHERE e.session_key = s.key AND e.type = 'session/title'
                    AND e.seq >= coalesce((s.header->>'seedLength')::integer, 0)
                    AND btrim(e.data->>'title') <> ''
                  ORDER BY e.seq DESC LIMIT 1), s.title) AS title,
              s.event_count, s.last_activity, s.turns, s.host, s.open_turn,
              s.usage, s.usage_events,
              coalesce(l.nonce IS NOT NULL AND l.expires_at > now(), false) AS live,
              CASE WHEN s.open_turn THEN NULL ELSE
                (SELECT e.data->>'reason' FROM ${s}.events e
                  WHERE e.session_key = s.key AND e.type = 'turn/end' ORDER BY e.seq DESC LIMIT 1)
              END AS last_reason
         FROM ${s}.sessions s LEFT JOIN ${s}.leases l ON l.session_key = s.key
         ${keys === undefined ? '' : 'WHERE s.key = ANY($1::bytea[])'}`,
      keys === undefined ? [] : [keys],
    ),
  )
  const summaries: PostgresSummary[] = []
  for (const row of rows) {
    const summary: PostgresSummary = {
      header: parseHeader(row.header),
      eventCount: row.event_count,
      lastActivity: row.last_activity,
      turns: row.turns,
      host: row.host,
      status: row.live ? 'live' : row.open_turn ? 'interrupted' : 'idle',
      usage: await withReconnect(config, () => caughtUpLedger(pool, s, row.key, row)),
    }
    if (row.title !== null) summary.title = row.title
    if (row.open_turn) summary.outcome = 'open'
    else if (row.last_reason !== null) summary.outcome = row.last_reason as SessionOutcome
    summaries.push(summary)
  }
  return summaries
}

/**
 * Ids starting with `prefix` and not with `except`: a range scan of the `text_pattern_ops`
 * index (schema version 5) that skips `except`'s range.
 */
export async function idsWithPrefix(
  pool: Pool,
  s: string,
  config: ResolvedPostgresConfig,
  parseHeader: (value: unknown) => SessionHeader,
  prefix: string,
  limit: number,
  except?: string,
): Promise<SessionId[]> {
  const params: unknown[] = [prefix, limit]
  const bind = (value: unknown) => `$${params.push(value)}`
  const upper = prefixUpperBound(prefix)
  let where = `id ~>=~ $1${upper === undefined ? '' : ` AND id ~<~ ${bind(upper)}`}`
  if (except?.startsWith(prefix)) {
    const exceptUpper = prefixUpperBound(except)
    where += ` AND NOT (id ~>=~ ${bind(except)}${exceptUpper === undefined ? '' : ` AND id ~<~ ${bind(exceptUpper)}`})`
  }
  const { rows } = await withReconnect(config, () =>
    pool.query<{ header: unknown }>(
      `SELECT header FROM ${s}.sessions WHERE ${where} ORDER BY id LIMIT $2`,
      params,
    ),
  )
  // The column shows NUL as \u0000; the header holds the exact id.
  return rows.map((row) => parseHeader(row.header).id).filter((id) => matchesPrefix(id, prefix, except))
}
