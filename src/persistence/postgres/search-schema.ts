// What PostgreSQL stores for session search: each searchable event row keeps a `tsvector`
// of the very tokens the shared tokenizer gives (array_to_tsvector: no server-side parser
// or locale to disagree with), under a GIN index, and the migration that added it.

import {
  countBounds,
  DOCUMENT_KINDS,
  documentsOf,
  SEARCHED_EVENT_TYPES,
  type SearchTerm,
  tokenize,
} from '../search-text.js'

/** Longer tokens are indexed by their first characters (a lexeme holds at most 2047 bytes). */
const MAX_LEXEME_CHARS = 200
/** A document with more distinct words is not indexed word by word (a tsvector holds < 1 MB). */
const MAX_VECTOR_CHARS = 256 * 1024
/** The lexeme of such a document: no query can produce it (`-` never is in a token), every search includes it. */
const UNINDEXED = '-unindexed-'
/**
 * The first lexeme of an indexed event (`-` sorts before every letter and digit): its
 * documents' kind codes and count bounds (see `countBounds`), e.g. `-b-153-243`. No query
 * produces it. Since schema version 6 also in the row's `bounds` column, which `searchBounds`
 * reads (the lexeme for rows from before), so the history service reads only the text it needs.
 */
export const BOUNDS_MARK = '-b-'

export const TYPES_SQL = SEARCHED_EVENT_TYPES.map((type) => `'${type}'`).join(', ')

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

${appendEvents(s, channel, false)}`,
}

/** Schema version 6 (listed in migrations.ts). */
export const BOUNDS_MIGRATION = {
  version: 6,
  description: "history search: events.bounds, each indexed event's bounds mark in a column of its own",
  sql: (s: string, channel: string) => `
-- The bounds query reads this short text instead of taking each matching tsvector apart.
-- Added empty: no table rewrite. Rows from before keep being read through their first lexeme.
ALTER TABLE ${s}.events ADD COLUMN bounds text;

${appendEvents(s, channel, true)}`,
}

/** The SQL expression of the bounds mark of a `search` words string (its first word, when a mark). */
export function boundsOfWords(words: string): string {
  return `CASE WHEN ${words} LIKE '${BOUNDS_MARK}%' THEN split_part(${words}, ' ', 1) END`
}

/**
 * The twelve-argument `append_events` (the search words as the last argument): as created
 * by version 4, and as version 6 replaces it to fill `bounds` too. Same signature, so a
 * host that started before version 6 calls the new one.
 */
function appendEvents(s: string, channel: string, bounds: boolean): string {
  return `CREATE ${bounds ? 'OR REPLACE ' : ''}FUNCTION ${s}.append_events(
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
  INSERT INTO ${s}.events (session_key, seq, type, time, data, ignorable, search${bounds ? ', bounds' : ''})
    SELECT p_key, e.seq, e.type, e.time, e.data, e.ignorable,
      CASE WHEN e.words IS NULL THEN NULL
           WHEN e.words = '' THEN ''::tsvector
           ELSE array_to_tsvector(string_to_array(e.words, ' ')) END${bounds ? `,\n      ${boundsOfWords('e.words')}` : ''}
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
`
}
