// Session search in PostgreSQL: each searchable event row keeps a `tsvector` of the very
// tokens the shared tokenizer gives (array_to_tsvector: no server-side parser or locale to
// disagree with), under a GIN index. Rows an older writer appended, or that the backfill
// has not reached yet, have none and are always candidates; the backfill fills them in
// small batches, each its own transaction, so hosts keep writing meanwhile.

import type { Pool } from 'pg'
import type { SessionId } from '../../session/types.js'
import {
  countBounds,
  DOCUMENT_KINDS,
  documentsOf,
  MAX_COUNTED,
  oneWordPrefix,
  SEARCHED_EVENT_TYPES,
  type SearchDocument,
  type SearchRequest,
  type SearchTerm,
  type SessionBound,
  tokenize,
} from '../search-text.js'

/** Longer tokens are indexed by their first characters (a lexeme holds at most 2047 bytes). */
const MAX_LEXEME_CHARS = 200
/** A document with more distinct words is not indexed word by word (a tsvector holds < 1 MB). */
const MAX_VECTOR_CHARS = 256 * 1024
/** The lexeme of such a document: no query can produce it (`-` never is in a token), every search includes it. */
const UNINDEXED = '-unindexed-'
const BACKFILL_BATCH = 500
/**
 * The first lexeme of an indexed event (`-` sorts before every letter and digit): its
 * documents' kind codes and count bounds (see `countBounds`), e.g. `-b-153-243`. No query
 * produces it; `searchBounds` reads it so the history service reads only the text it needs.
 */
const BOUNDS_MARK = '-b-'

const TYPES_SQL = SEARCHED_EVENT_TYPES.map((type) => `'${type}'`).join(', ')

/**
 * The words of an event for its `search` column, space-separated and distinct; null for
 * an event without searchable text. Reasoning is included: the history service filters it.
 */
export function searchWords(type: string, data: unknown): string | null {
  const docs = documentsOf(type, data)
  if (docs.length === 0) return null
  const marks = docs.map((doc) => {
    const { repeat, words } = countBounds(doc.text)
    return `${DOCUMENT_KINDS.indexOf(doc.kind)}${repeat}${words}`
  })
  const words = new Set<string>([`${BOUNDS_MARK}${marks.join('-')}`])
  let chars = 0
  for (const doc of docs) {
    for (const token of tokenize(doc.text)) {
      const word = token.length > MAX_LEXEME_CHARS ? token.slice(0, MAX_LEXEME_CHARS) : token
      if (words.has(word)) continue
      words.add(word)
      chars += word.length + 1
      if (chars > MAX_VECTOR_CHARS) return UNINDEXED
    }
  }
  return [...words].join(' ')
}

/** The tsquery of the terms: every token of every term required (a superset of the phrase), plus unindexed rows. */
export function tsQuery(terms: readonly SearchTerm[]): string {
  const parts: string[] = []
  for (const term of terms) {
    term.tokens.forEach((token, index) => {
      const long = token.length > MAX_LEXEME_CHARS
      const prefix = long || (term.prefix && index === term.tokens.length - 1)
      parts.push(`'${long ? token.slice(0, MAX_LEXEME_CHARS) : token}'${prefix ? ':*' : ''}`)
    })
  }
  return `(${parts.join(' & ')}) | '${UNINDEXED}'`
}

/** Schema version 4 (listed in migrations.ts). */
export const SEARCH_MIGRATION = {
  version: 4,
  description: 'history search: events.search tsvector with a GIN index, append_events fills it',
  sql: (s: string, channel: string) => `
-- Added empty: no table rewrite. Older rows are filled by the backfill, not here, so this
-- migration stays short; until then such rows are searched as candidates without index.
ALTER TABLE ${s}.events ADD COLUMN search tsvector;
CREATE INDEX events_search ON ${s}.events USING gin (search);
CREATE INDEX events_search_pending ON ${s}.events (session_key, seq)
  WHERE search IS NULL AND type IN (${TYPES_SQL});

CREATE FUNCTION ${s}.append_events(
  p_key bytea, p_token bigint, p_seqs integer[], p_types text[], p_times bigint[], p_data json[],
  p_ignorable boolean[], p_title text, p_turns integer, p_open boolean, p_usage json, p_search text[]
) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_count integer;
  v_lease record;
  v_added integer;
BEGIN
  SELECT event_count INTO v_count FROM ${s}.sessions WHERE key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'session is not stored' USING ERRCODE = 'DSH04';
  END IF;
  SELECT token, nonce, host, pid INTO v_lease FROM ${s}.leases WHERE session_key = p_key;
  IF NOT FOUND OR v_lease.token IS DISTINCT FROM p_token OR v_lease.nonce IS NULL THEN
    RAISE EXCEPTION 'the writer lease has moved on' USING ERRCODE = 'DSH01',
      DETAIL = json_build_object('token', v_lease.token, 'host', v_lease.host, 'pid', v_lease.pid)::text;
  END IF;
  IF p_seqs[1] <> v_count THEN
    RAISE EXCEPTION 'append of seq % does not follow the stored tail %', p_seqs[1], v_count
      USING ERRCODE = 'DSH02', DETAIL = v_count::text;
  END IF;
  INSERT INTO ${s}.events (session_key, seq, type, time, data, ignorable, search)
    SELECT p_key, e.seq, e.type, e.time, e.data, e.ignorable,
      CASE WHEN e.words IS NULL THEN NULL
           WHEN e.words = '' THEN ''::tsvector
           ELSE array_to_tsvector(string_to_array(e.words, ' ')) END
    FROM unnest(p_seqs, p_types, p_times, p_data, p_ignorable, p_search)
      AS e(seq, type, time, data, ignorable, words);
  GET DIAGNOSTICS v_added = ROW_COUNT;
  UPDATE ${s}.sessions SET
    event_count = v_count + v_added,
    last_activity = p_times[v_added],
    title = coalesce(title, p_title),
    turns = greatest(turns, p_turns),
    open_turn = coalesce(p_open, open_turn),
    usage = p_usage,
    usage_events = v_count + v_added
  WHERE key = p_key;
  PERFORM pg_notify('${channel}', encode(p_key, 'hex') || ':' || (v_count + v_added));
  RETURN v_count + v_added;
END
$fn$;
`,
}

interface CandidateRow {
  id: SessionId
  seq: number
  type: string
  data: unknown
}

/**
 * Candidate documents: indexed rows the query matches, and rows not indexed yet. Read
 * only. Their turns are looked up for the results alone (`turnOf`).
 */
export async function searchRows(
  pool: Pool,
  s: string,
  request: SearchRequest,
  cwdColumn: string | undefined,
  visit: (doc: SearchDocument) => void,
): Promise<void> {
  const params: unknown[] = [tsQuery(request.terms)]
  if (cwdColumn !== undefined) params.push(cwdColumn)
  const { rows } = await pool.query<CandidateRow>(
    `SELECT s.header->'id' AS id, e.seq, e.type, e.data
     FROM ${s}.events e JOIN ${s}.sessions s ON s.key = e.session_key
     WHERE (e.search @@ $1::tsquery OR (e.search IS NULL AND e.type IN (${TYPES_SQL})))
       ${cwdColumn === undefined ? '' : 'AND s.cwd = $2'}`,
    params,
  )
  for (const row of rows) {
    for (const doc of documentsOf(row.type, row.data)) {
      if (doc.kind === 'reasoning' && !request.reasoning) continue
      visit({ sessionId: row.id, seq: row.seq, kind: doc.kind, text: doc.text })
    }
  }
}

/**
 * Each candidate session's bounds, from the index alone: per session, how many candidate
 * events carry each bounds mark. An event without one (written before marks, not indexed
 * yet, or too long to index) is bounded by the most any document could count.
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
  const { rows } = await pool.query<{ key: Buffer; id: SessionId; last_activity: string; marks: string[] }>(
    `SELECT s.key, s.header->>'id' AS id, s.last_activity, g.marks
     FROM (SELECT session_key, array_agg(coalesce(mark, '') || ' ' || n) AS marks
           FROM (SELECT session_key, mark, count(*) AS n
                 FROM (SELECT e.session_key, (tsvector_to_array(e.search))[1] AS mark
                         FROM ${s}.events e WHERE e.search @@ $1::tsquery
                       UNION ALL
                       SELECT e.session_key, NULL FROM ${s}.events e
                         WHERE e.search IS NULL AND e.type IN (${TYPES_SQL})) c
                 GROUP BY session_key, mark) m
           GROUP BY session_key) g
     JOIN ${s}.sessions s ON s.key = g.session_key ${cwdColumn === undefined ? '' : 'AND s.cwd = $2'}`,
    params,
  )
  const prefixes = request.terms.filter(oneWordPrefix).length
  const others = request.terms.length - prefixes
  const unknown = request.terms.length * MAX_COUNTED
  return rows.map((row) => {
    let docs = 0
    const counted = new Map<SessionBound['kinds'][number]['kind'], number>()
    const note = (kind: SessionBound['kinds'][number]['kind'], value: number) => {
      if (!((counted.get(kind) ?? -1) >= value)) counted.set(kind, value)
    }
    for (const entry of row.marks) {
      const [mark, n] = entry.split(' ') as [string, string]
      const events = Number(n)
      if (!mark.startsWith(BOUNDS_MARK)) {
        // Unknown: up to two documents (an answer and its reasoning), of any kind.
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
    const kinds = [...counted].map(([kind, value]) => ({ kind, counted: value }))
    return { sessionId: row.id, lastActivity: Number(row.last_activity), docs, kinds, handle: row.key }
  })
}

/** The candidate documents of sessions from `searchBounds`, read through the sessions' own rows. */
export async function searchDocumentsOf(
  pool: Pool,
  s: string,
  request: SearchRequest,
  sessions: readonly SessionBound[],
  visit: (doc: SearchDocument) => void,
): Promise<void> {
  const { rows } = await pool.query<CandidateRow>(
    `SELECT s.header->'id' AS id, e.seq, e.type, e.data
     FROM ${s}.events e JOIN ${s}.sessions s ON s.key = e.session_key
     WHERE e.session_key = ANY($2::bytea[])
       AND (e.search @@ $1::tsquery OR (e.search IS NULL AND e.type IN (${TYPES_SQL})))
     ORDER BY e.session_key, e.seq`,
    [tsQuery(request.terms), sessions.map((session) => session.handle as Buffer)],
  )
  for (const row of rows) {
    for (const doc of documentsOf(row.type, row.data)) {
      if (doc.kind === 'reasoning' && !request.reasoning) continue
      visit({ sessionId: row.id, seq: row.seq, kind: doc.kind, text: doc.text })
    }
  }
}

/** The turns of several events, by session key and seq, in one query: see `turnOf`. */
export async function turnsOf(pool: Pool, s: string, keys: Buffer[], seqs: number[]): Promise<number[]> {
  const { rows } = await pool.query<{ turn: number | null }>(
    `SELECT (SELECT (t.data->>'turn')::integer FROM ${s}.events t
              WHERE t.session_key = q.key AND t.seq <= q.seq AND t.type = 'turn/start'
              ORDER BY t.seq DESC LIMIT 1) AS turn
       FROM unnest($1::bytea[], $2::integer[]) WITH ORDINALITY AS q(key, seq, i) ORDER BY q.i`,
    [keys, seqs],
  )
  return rows.map((row) => row.turn ?? 0)
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
          ELSE array_to_tsvector(string_to_array(v.words, ' ')) END
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
