// Session search in SQLite: an FTS5 table holds every searchable document, written in the
// same transaction as the events (so it is always in step), and built from the stored
// events by a named migration when an older database first opens. A document's rowid
// says whose it is, which event and kind, and how often a term can occur in it, so the
// history service gets each session's bounds from the FTS index alone, reading no text.

import type Database from 'better-sqlite3'
import type { SessionEvent, SessionId } from '../../session/types.js'
import {
  countBounds,
  DOCUMENT_KINDS,
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
 * rowid = session number · 2^33 + seq · 2^9 + kind · 2^6 + repeat bound · 2^3 + words bound
 * (see `countBounds`): below 2^53, so JavaScript reads rowids exactly and decodes them
 * itself (faster than any expression per row in SQL). 2^20 sessions a database, 2^24
 * events a session.
 */
const SESSION_UNIT = 2 ** 33
const MAX_SESSIONS = 2 ** 20
const MAX_SEQ = 2 ** 24
const KINDS = DOCUMENT_KINDS

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
  const sessions = (scoped: boolean) =>
    db.prepare(
      `SELECT k.num, k.session_id AS id, s.last_activity FROM search_sessions k JOIN sessions s ON s.id = k.session_id
       WHERE k.num IN (SELECT value FROM json_each(?)) ${scoped ? 'AND s.cwd = ?' : ''}`,
    )
  return {
    sessionNumber: db.prepare('SELECT num FROM search_sessions WHERE session_id = ?').pluck(),
    addSession: db.prepare('INSERT INTO search_sessions (session_id) VALUES (?) RETURNING num').pluck(),
    insert: db.prepare('INSERT INTO search_index (rowid, text) VALUES (?, ?)'),
    remove: db.prepare('DELETE FROM search_index WHERE rowid >= ? AND rowid < ?'),
    removeSession: db.prepare('DELETE FROM search_sessions WHERE num = ?'),
    matches: db.prepare('SELECT rowid FROM search_index WHERE search_index MATCH ?').pluck(),
    sessionsEverywhere: sessions(false),
    sessionsInFolder: sessions(true),
    documents: db.prepare(
      'SELECT rowid, text FROM search_index WHERE rowid IN (SELECT value FROM json_each(?))',
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
      if (num >= MAX_SESSIONS) throw new Error(`the search index holds at most ${MAX_SESSIONS} sessions`)
      const { repeat, words } = countBounds(doc.text)
      const low = (KINDS.indexOf(doc.kind) << 6) | (repeat << 3) | words
      sql.insert.run(num * SESSION_UNIT + event.seq * 512 + low, doc.text)
    }
  }
}

/** Drops a session's documents; runs inside the removal's transaction. */
export function unindexSession(sql: SearchStatements, id: SessionId): void {
  const num = sql.sessionNumber.get(id) as number | undefined
  if (num === undefined) return
  sql.remove.run(num * SESSION_UNIT, (num + 1) * SESSION_UNIT)
  sql.removeSession.run(num)
}

/** The FTS5 expression of the terms: each a quoted phrase of its tokens, `*` for a prefix, all required. */
export function ftsExpression(terms: readonly SearchTerm[]): string {
  return terms.map((term) => `"${term.tokens.join(' ')}"${term.prefix ? '*' : ''}`).join(' AND ')
}

/** Each candidate session's bounds, from the FTS5 match's rowids alone. */
export function searchBounds(sql: SearchStatements, request: SearchRequest): SessionBound[] {
  const prefixes = request.terms.filter(oneWordPrefix).length
  const others = request.terms.length - prefixes
  const found = new Map<number, { docs: number[]; counted: number[] }>()
  for (const rowid of sql.matches.all(ftsExpression(request.terms)) as number[]) {
    const low = rowid % 512
    const kind = low >> 6
    if (KINDS[kind] === 'reasoning' && !request.reasoning) continue
    const num = Math.floor(rowid / SESSION_UNIT)
    let session = found.get(num)
    if (!session) {
      session = { docs: [], counted: [] }
      found.set(num, session)
    }
    session.docs.push(rowid)
    const counted = prefixes * (low & 7) + others * ((low >> 3) & 7)
    if (!(session.counted[kind]! >= counted)) session.counted[kind] = counted
  }
  if (found.size === 0) return []
  const nums = JSON.stringify([...found.keys()])
  const rows = (
    request.cwd === undefined ? sql.sessionsEverywhere.all(nums) : sql.sessionsInFolder.all(nums, request.cwd)
  ) as { num: number; id: SessionId; last_activity: number }[]
  return rows.map((row) => {
    const { docs, counted } = found.get(row.num)!
    const kinds: SessionBound['kinds'] = []
    counted.forEach((value, kind) => {
      if (value !== undefined) kinds.push({ kind: KINDS[kind]!, counted: value })
    })
    return { sessionId: row.id, lastActivity: row.last_activity, docs: docs.length, kinds, handle: docs }
  })
}

/** The candidate documents of sessions from `searchBounds` (by rowid: no new match). */
export function searchDocumentsOf(
  sql: SearchStatements,
  sessions: readonly SessionBound[],
  visit: (doc: SearchDocument) => void,
): void {
  const ids = new Map<number, SessionId>()
  const rowids: number[] = []
  for (const session of sessions) {
    const docs = session.handle as number[]
    ids.set(Math.floor(docs[0]! / SESSION_UNIT), session.sessionId)
    rowids.push(...docs)
  }
  const rows = sql.documents.all(JSON.stringify(rowids)) as { rowid: number; text: string }[]
  rows.sort((a, b) => a.rowid - b.rowid) // in event order, as every backend passes them
  for (const { rowid, text } of rows) {
    visit({
      sessionId: ids.get(Math.floor(rowid / SESSION_UNIT))!,
      seq: Math.floor((rowid % SESSION_UNIT) / 512),
      kind: KINDS[(rowid % 512) >> 6]!,
      text,
    })
  }
}
