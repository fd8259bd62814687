// Session search in SQLite: an FTS5 table holds every searchable document, written in the
// same transaction as the events (so it is always in step), and built from the stored
// events by a named migration when an older database first opens.

import type Database from 'better-sqlite3'
import type { SessionEvent, SessionId } from '../../session/types.js'
import {
  documentsOf,
  SEARCHED_EVENT_TYPES,
  type SearchDocument,
  type SearchRequest,
  type SearchTerm,
} from '../search-text.js'

/** The migration's entry in `dsh_migrations`. */
export const SEARCH_INDEX_MIGRATION = 'history-search-fts5-v1'

/** `unicode61` splits on what is not a letter or digit, like `tokenize` in search-text.ts. */
const FTS_TABLE = `CREATE VIRTUAL TABLE search_index USING fts5(
  text, kind UNINDEXED, session_id UNINDEXED, seq UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 0'
)`

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
    db.exec(`DROP TABLE IF EXISTS search_index; ${FTS_TABLE}`)
    const insert = db.prepare('INSERT INTO search_index (text, kind, session_id, seq) VALUES (?, ?, ?, ?)')
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
        for (const doc of documentsOf(row.type, JSON.parse(row.data))) {
          insert.run(doc.text, doc.kind, row.session_id, row.seq)
        }
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
  const candidates = (scoped: boolean) =>
    db.prepare(
      `SELECT f.session_id, f.seq, f.kind, f.text,
         coalesce((SELECT json_extract(t.data, '$.turn') FROM events t
           WHERE t.session_id = f.session_id AND t.seq <= f.seq AND t.type = 'turn/start'
           ORDER BY t.seq DESC LIMIT 1), 0) AS turn
       FROM search_index f
       WHERE search_index MATCH ? AND (? OR f.kind != 'reasoning')
       ${scoped ? 'AND f.session_id IN (SELECT id FROM sessions WHERE cwd = ?)' : ''}`,
    )
  return {
    insert: db.prepare('INSERT INTO search_index (text, kind, session_id, seq) VALUES (?, ?, ?, ?)'),
    remove: db.prepare('DELETE FROM search_index WHERE session_id = ?'),
    everywhere: candidates(false),
    inFolder: candidates(true),
  }
}

/** Indexes appended events; runs inside the append's transaction. */
export function indexEvents(sql: SearchStatements, id: SessionId, events: readonly SessionEvent[]): void {
  for (const event of events) {
    for (const doc of documentsOf(event.type, event.data)) sql.insert.run(doc.text, doc.kind, id, event.seq)
  }
}

/** The FTS5 expression of the terms: each a quoted phrase of its tokens, `*` for a prefix, all required. */
export function ftsExpression(terms: readonly SearchTerm[]): string {
  return terms.map((term) => `"${term.tokens.join(' ')}"${term.prefix ? '*' : ''}`).join(' AND ')
}

/** Candidate documents of an FTS5 match. */
export function searchIndex(
  sql: SearchStatements,
  request: SearchRequest,
  visit: (doc: SearchDocument) => void,
): void {
  const expression = ftsExpression(request.terms)
  const reasoning = request.reasoning ? 1 : 0
  const rows =
    request.cwd === undefined
      ? sql.everywhere.iterate(expression, reasoning)
      : sql.inFolder.iterate(expression, reasoning, request.cwd)
  for (const row of rows as Iterable<{
    session_id: string
    seq: number
    kind: SearchDocument['kind']
    text: string
    turn: number
  }>) {
    visit({ sessionId: row.session_id, seq: row.seq, turn: row.turn, kind: row.kind, text: row.text })
  }
}
