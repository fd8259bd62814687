// Session search in SQLite: an FTS5 table holds every searchable document, written in the
// same transaction as the events (so it is always in step), and built from the stored
// events by a named migration when an older database first opens. A document's rowid
// says whose it is, which event and kind, and how often a term can occur in it, so the
// history service gets each session's bounds from the FTS index alone, reading no text.

import type Database from 'better-sqlite3'
import type { SessionEvent, SessionId } from '../../session/types.js'
import {
  countBounds,
  type DocumentKind,
  documentsOf,
  oneWordPrefix,
  SEARCHED_EVENT_TYPES,
  type SearchDocument,
  type SearchRequest,
  type SearchTerm,
  type SessionBound,
} from '../search-text.js'

/** The migration's entry in `dsh_migrations` (v1 had no bounds in its rowids: rebuilt). */
export const SEARCH_INDEX_MIGRATION = 'history-search-fts5-v2'

/**
 * rowid = session number << 37 | seq << 9 | kind << 6 | repeat bound << 3 | words bound
 * (see `countBounds`): 2^26 sessions a database, 2^28 events a session.
 */
const SESSION_SHIFT = 37n
const MAX_SEQ = 2 ** 28
const KINDS: DocumentKind[] = ['prompt', 'answer', 'reasoning', 'tool-call', 'tool-output', 'title']
const REASONING = KINDS.indexOf('reasoning')

/** `unicode61` splits on what is not a letter or digit, like `tokenize` in search-text.ts. */
const SCHEMA = `CREATE VIRTUAL TABLE search_index USING fts5(
  text, tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TABLE search_sessions (num INTEGER PRIMARY KEY, session_id TEXT NOT NULL UNIQUE);`

const MIGRATION_BATCH = 1000
const TYPES_SQL = SEARCHED_EVENT_TYPES.map((type) => `'${type}'`).join(', ')

/**
 * Creates the index and fills it from the stored events, once per database (a named
 * entry in `dsh_migrations`, checked inside the write transaction so two processes
 * opening an old database together build it once).
 */
export function migrateSearchIndex(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS dsh_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const applied = db.prepare('SELECT 1 FROM dsh_migrations WHERE name = ?')
  if (applied.get(SEARCH_INDEX_MIGRATION)) return
  db.transaction(() => {
    if (applied.get(SEARCH_INDEX_MIGRATION)) return
    db.exec(`DROP TABLE IF EXISTS search_index; DROP TABLE IF EXISTS search_sessions; ${SCHEMA}`)
    const sql = prepareSearchStatements(db)
    // In key order, a batch at a time: a statement still iterating would block the inserts.
    const batch = db.prepare(
      `SELECT session_id, seq, type, data FROM events WHERE type IN (${TYPES_SQL}) AND (session_id, seq) > (?, ?)
       ORDER BY session_id, seq LIMIT ${MIGRATION_BATCH}`,
    )
    let after: [string, number] = ['', -1]
    for (;;) {
      const rows = batch.all(...after) as { session_id: string; seq: number; type: string; data: string }[]
      if (rows.length === 0) break
      for (const row of rows) {
        indexEvents(sql, row.session_id, [{ seq: row.seq, type: row.type, data: JSON.parse(row.data) }])
      }
      const last = rows.at(-1)!
      after = [last.session_id, last.seq]
    }
    db.prepare('INSERT INTO dsh_migrations (name, applied_at) VALUES (?, ?)').run(
      SEARCH_INDEX_MIGRATION,
      Date.now(),
    )
  }).immediate()
}

export type SearchStatements = ReturnType<typeof prepareSearchStatements>

export function prepareSearchStatements(db: Database.Database) {
  // Grouped on the rowid alone (no read of the FTS content), then joined to the sessions.
  const bounds = (scoped: boolean) =>
    db.prepare(
      `SELECT k.session_id AS id, s.last_activity, g.num, g.kind, g.docs, g.counted, g.rowids
       FROM (SELECT rowid >> ${SESSION_SHIFT} AS num, (rowid >> 6) & 7 AS kind, count(*) AS docs,
               max(? * (rowid & 7) + ? * ((rowid >> 3) & 7)) AS counted, group_concat(rowid) AS rowids
             FROM search_index WHERE search_index MATCH ? AND (? OR (rowid >> 6) & 7 != ${REASONING})
             GROUP BY num, kind) g
       JOIN search_sessions k ON k.num = g.num JOIN sessions s ON s.id = k.session_id
       ${scoped ? 'WHERE s.cwd = ?' : ''}`,
    )
  return {
    sessionNumber: db.prepare('SELECT num FROM search_sessions WHERE session_id = ?').pluck(),
    addSession: db.prepare('INSERT INTO search_sessions (session_id) VALUES (?) RETURNING num').pluck(),
    insert: db.prepare(
      `INSERT INTO search_index (rowid, text) VALUES ((? << ${SESSION_SHIFT}) | (? << 9) | (? << 6) | (? << 3) | ?, ?)`,
    ),
    remove: db.prepare(
      `DELETE FROM search_index WHERE rowid >= (? << ${SESSION_SHIFT}) AND rowid < ((? + 1) << ${SESSION_SHIFT})`,
    ),
    removeSession: db.prepare('DELETE FROM search_sessions WHERE num = ?'),
    everywhere: bounds(false),
    inFolder: bounds(true),
    documents: db.prepare(
      `SELECT rowid >> ${SESSION_SHIFT} AS num, (rowid >> 9) & ${MAX_SEQ - 1} AS seq, (rowid >> 6) & 7 AS kind, text
       FROM search_index WHERE rowid IN (SELECT value FROM json_each(?))`,
    ),
    turn: db
      .prepare(
        `SELECT coalesce((SELECT json_extract(data, '$.turn') FROM events
           WHERE session_id = ? AND seq <= ? AND type = 'turn/start' ORDER BY seq DESC LIMIT 1), 0)`,
      )
      .pluck(),
  }
}

/** Indexes appended events; runs inside the append's transaction. */
export function indexEvents(
  sql: SearchStatements,
  id: SessionId,
  events: readonly Pick<SessionEvent, 'seq' | 'type' | 'data'>[],
): void {
  let num: number | undefined
  for (const event of events) {
    for (const doc of documentsOf(event.type, event.data)) {
      if (event.seq >= MAX_SEQ) throw new Error(`event ${event.seq} is past the search index's ${MAX_SEQ}`)
      num ??= (sql.sessionNumber.get(id) as number | undefined) ?? (sql.addSession.get(id) as number)
      const { repeat, words } = countBounds(doc.text)
      sql.insert.run(num, event.seq, KINDS.indexOf(doc.kind), repeat, words, doc.text)
    }
  }
}

/** Drops a session's documents; runs inside the removal's transaction. */
export function unindexSession(sql: SearchStatements, id: SessionId): void {
  const num = sql.sessionNumber.get(id) as number | undefined
  if (num === undefined) return
  sql.remove.run(num, num)
  sql.removeSession.run(num)
}

/** The FTS5 expression of the terms: each a quoted phrase of its tokens, `*` for a prefix, all required. */
export function ftsExpression(terms: readonly SearchTerm[]): string {
  return terms.map((term) => `"${term.tokens.join(' ')}"${term.prefix ? '*' : ''}`).join(' AND ')
}

/** Each candidate session's bounds, from the FTS5 match's rowids. */
export function searchBounds(sql: SearchStatements, request: SearchRequest): SessionBound[] {
  const prefixes = request.terms.filter(oneWordPrefix).length
  const params = [
    prefixes,
    request.terms.length - prefixes,
    ftsExpression(request.terms),
    request.reasoning ? 1 : 0,
  ]
  const rows = (
    request.cwd === undefined ? sql.everywhere.all(...params) : sql.inFolder.all(...params, request.cwd)
  ) as {
    id: string
    last_activity: number
    num: number
    kind: number
    docs: number
    counted: number
    rowids: string
  }[]
  const sessions = new Map<SessionId, SessionBound>()
  for (const row of rows) {
    let bound = sessions.get(row.id)
    if (!bound) {
      bound = { sessionId: row.id, lastActivity: row.last_activity, kinds: [], handle: '' }
      sessions.set(row.id, bound)
    }
    bound.kinds.push({ kind: KINDS[row.kind]!, docs: row.docs, counted: row.counted })
    bound.handle = bound.handle === '' ? `${row.num}:${row.rowids}` : `${bound.handle},${row.rowids}`
  }
  return [...sessions.values()]
}

/** The candidate documents of sessions from `searchBounds` (by rowid: no new match). */
export function searchDocumentsOf(
  sql: SearchStatements,
  sessions: readonly SessionBound[],
  visit: (doc: SearchDocument) => void,
): void {
  const ids = new Map<number, SessionId>()
  const rowids: string[] = []
  for (const session of sessions) {
    const [num, list] = session.handle!.split(':') as [string, string]
    ids.set(Number(num), session.sessionId)
    rowids.push(list)
  }
  const rows = sql.documents.all(`[${rowids.join(',')}]`) as {
    num: number
    seq: number
    kind: number
    text: string
  }[]
  for (const row of rows) {
    visit({ sessionId: ids.get(row.num)!, seq: row.seq, kind: KINDS[row.kind]!, text: row.text })
  }
}
