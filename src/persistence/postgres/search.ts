// Session search's queries on PostgreSQL (what is stored: search-schema.ts). Rows an older
// writer appended, or that the backfill has not reached yet, have no `search` and are always
// candidates; the backfill fills them in small batches, each its own transaction, so hosts
// keep writing meanwhile.

import type { Pool } from 'pg'
import type { SessionId } from '../../session/types.js'
import {
  DOCUMENT_KINDS,
  type DocumentKind,
  DocumentWalker,
  MAX_COUNTED,
  oneWordPrefix,
  type SearchDocument,
  type SearchRequest,
  type SessionBound,
} from '../search-text.js'
import { sessionKey } from './rows.js'
import { BOUNDS_MARK, boundsOfWords, searchWords, TYPES_SQL, tsQuery } from './search-schema.js'

const BACKFILL_BATCH = 500

/** One row of the bounds query: a candidate session and how many of its candidate events carry each bounds mark. */
export interface SessionMarksRow {
  /** The `id` column: the id, with U+0000 written as `\u0000` (see `textColumn`). */
  id: string
  /**
   * The header, read only when `id` holds a backslash (it may then differ from the id).
   * Whole: `header->'id'` fails on the `\u0000` such an id may hold.
   */
  header: { id: SessionId } | null
  last_activity: string
  /**
   * `mark:count` pairs, space-separated: the events' bounds marks (empty or another
   * lexeme: none, the most any document counts) and how many candidate events carry each.
   * Neither marks nor lexemes hold a space or a colon.
   */
  marks: string
}

/**
 * Each candidate session's bounds, from the index alone: per session, how many candidate
 * events carry each bounds mark, one short row per session (on a busy machine, sending
 * and parsing rows costs more than counting them).
 */
export async function searchBounds(
  pool: Pool,
  s: string,
  request: SearchRequest,
  cwdColumn: string | undefined,
): Promise<SessionBound[]> {
  const params: unknown[] = [tsQuery(request.terms)]
  if (cwdColumn !== undefined) params.push(cwdColumn)
  // Two branches, so each is planned on its own index (an OR of both defeats the estimates).
  const { rows } = await pool.query<SessionMarksRow>(
    `SELECT s.id, CASE WHEN strpos(s.id, '\\') > 0 THEN s.header END AS header, s.last_activity, c.marks
     FROM (SELECT session_key, string_agg(coalesce(mark, '') || ':' || n, ' ') AS marks
           FROM (SELECT session_key, mark, count(*) AS n
                 FROM (SELECT e.session_key, coalesce(e.bounds, (tsvector_to_array(e.search))[1]) AS mark
                         FROM ${s}.events e WHERE e.search @@ $1::tsquery
                       UNION ALL
                       SELECT e.session_key, NULL FROM ${s}.events e
                         WHERE e.search IS NULL AND e.type IN (${TYPES_SQL})) u
                 GROUP BY session_key, mark) m
           GROUP BY session_key) c
     JOIN ${s}.sessions s ON s.key = c.session_key ${cwdColumn === undefined ? '' : 'AND s.cwd = $2'}`,
    params,
  )
  return rows.map((row) => boundOf(row, request))
}

/**
 * The bounds of one session's row. An event without a bounds mark (written before marks,
 * not indexed yet, or too long to index) may hold up to two documents (an answer and its
 * reasoning) of any kind, each counting the most any can.
 */
export function boundOf(row: SessionMarksRow, request: SearchRequest): SessionBound {
  const prefixes = request.terms.filter(oneWordPrefix).length
  const others = request.terms.length - prefixes
  const unknown = request.terms.length * MAX_COUNTED
  let docs = 0
  const counted = new Map<DocumentKind, number>()
  const note = (kind: DocumentKind, value: number) => {
    if (!((counted.get(kind) ?? -1) >= value)) counted.set(kind, value)
  }
  for (const pair of row.marks.split(' ')) {
    const colon = pair.lastIndexOf(':')
    const mark = pair.slice(0, colon)
    const events = Number(pair.slice(colon + 1))
    if (!mark.startsWith(BOUNDS_MARK)) {
      docs += 2 * events
      for (const kind of DOCUMENT_KINDS) note(kind, unknown)
      continue
    }
    for (const code of mark.slice(BOUNDS_MARK.length).split('-')) {
      const kind = DOCUMENT_KINDS[Number(code[0])]!
      if (kind === 'reasoning' && !request.reasoning) continue
      docs += events
      note(kind, prefixes * Number(code[2]) + others * Number(code[1]))
    }
  }
  return {
    sessionId: row.header?.id ?? row.id,
    lastActivity: Number(row.last_activity),
    docs,
    kinds: [...counted].map(([kind, value]) => ({ kind, counted: value })),
  }
}

/**
 * The candidate documents of sessions from `searchBounds`, each with its turn: the
 * sessions' `turn/start` rows come along, a few bytes each.
 */
export async function searchDocumentsOf(
  pool: Pool,
  s: string,
  request: SearchRequest,
  sessions: readonly SessionBound[],
  visit: (doc: SearchDocument) => void,
): Promise<void> {
  const keys = sessions.map((session) => sessionKey(session.sessionId))
  const ids = new Map(sessions.map((session, index) => [keys[index]!.toString('hex'), session.sessionId]))
  const { rows } = await pool.query<{ session_key: Buffer; seq: number; type: string; data: unknown }>(
    `SELECT e.session_key, e.seq, e.type, e.data FROM ${s}.events e
     WHERE e.session_key = ANY($2::bytea[])
       AND (e.search @@ $1::tsquery OR (e.search IS NULL AND e.type IN (${TYPES_SQL})) OR e.type = 'turn/start')
     ORDER BY e.session_key, e.seq`,
    [tsQuery(request.terms), keys],
  )
  let walker: DocumentWalker | undefined
  let key: Buffer | undefined
  for (const row of rows) {
    if (key === undefined || !key.equals(row.session_key)) {
      key = row.session_key
      walker = new DocumentWalker(ids.get(key.toString('hex'))!, request.reasoning, visit)
    }
    walker!.event(row)
  }
}

/** The turn of event `seq` of the session stored under `key`: the last `turn/start` at or before it. */
export async function turnOf(pool: Pool, s: string, key: Buffer, seq: number): Promise<number> {
  const { rows } = await pool.query<{ turn: number | null }>(
    `SELECT (data->>'turn')::integer AS turn FROM ${s}.events
      WHERE session_key = $1 AND seq <= $2 AND type = 'turn/start' ORDER BY seq DESC LIMIT 1`,
    [key, seq],
  )
  return rows[0]?.turn ?? 0
}

/**
 * Fills `search` of rows that have none, a batch per transaction, until none is left or
 * `stopped()`. Resolves with the rows filled. Safe to run from several hosts at once.
 */
export async function backfillSearch(
  pool: Pool,
  s: string,
  stopped: () => boolean = () => false,
): Promise<number> {
  let filled = 0
  while (!stopped()) {
    const { rows } = await pool.query<{ session_key: Buffer; seq: number; type: string; data: unknown }>(
      `SELECT session_key, seq, type, data FROM ${s}.events
        WHERE search IS NULL AND type IN (${TYPES_SQL}) LIMIT ${BACKFILL_BATCH}`,
    )
    if (rows.length === 0) break
    await pool.query(
      `UPDATE ${s}.events e SET search = CASE WHEN v.words = '' THEN ''::tsvector
          ELSE array_to_tsvector(string_to_array(v.words, ' ')) END,
          bounds = ${boundsOfWords('v.words')}
        FROM unnest($1::bytea[], $2::integer[], $3::text[]) AS v(key, seq, words)
        WHERE e.session_key = v.key AND e.seq = v.seq AND e.search IS NULL`,
      [
        rows.map((row) => row.session_key),
        rows.map((row) => row.seq),
        rows.map((row) => searchWords(row.type, row.data) ?? ''),
      ],
    )
    filled += rows.length
  }
  return filled
}
