// The SQLite backend's tables, the column migrations of databases made before a column
// existed, and the prepared statements over them.

import type Database from 'better-sqlite3'
import type { SessionEvent, SessionId } from '../../session/types.js'
import { matchesPrefix, prefixUpperBound } from '../persistence.js'
import { givenTitle, lastTurnNumber, outcomeOf, titleFrom } from '../repair.js'
import type { ImageStatements } from './images.js'
import { addUsageColumns, type UsageStatements } from './usage.js'

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  header TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  cwd TEXT,
  title TEXT,
  event_count INTEGER NOT NULL,
  last_activity INTEGER NOT NULL,
  turns INTEGER NOT NULL DEFAULT 0,
  outcome TEXT,
  usage TEXT,
  usage_events INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  time INTEGER NOT NULL,
  data TEXT NOT NULL,
  ignorable INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
`

/** Brings a database made before a column existed up to SCHEMA (counts start from what is stored). */
export function addMissingColumns(db: Database.Database): void {
  const columns = new Set(
    (db.pragma('table_info(sessions)') as { name: string }[]).map((column) => column.name),
  )
  if (!columns.has('turns')) {
    db.exec(`ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
      UPDATE sessions SET turns = COALESCE((SELECT MAX(json_extract(data, '$.turn')) FROM events
        WHERE events.session_id = sessions.id AND events.type = 'turn/start'), 0);`)
  }
  if (!columns.has('outcome')) {
    db.exec(`ALTER TABLE sessions ADD COLUMN outcome TEXT;
      UPDATE sessions SET outcome = (SELECT CASE type WHEN 'turn/start' THEN 'open' ELSE json_extract(data, '$.reason') END
        FROM events WHERE events.session_id = sessions.id AND events.type IN ('turn/start', 'turn/end')
        ORDER BY seq DESC LIMIT 1);`)
  }
  addUsageColumns(db, columns)
}

export interface SessionRow {
  header: string
  title: string | null
  event_count: number
  last_activity: number
  turns: number
  outcome: string | null
  usage: string | null
  usage_events: number
}

export type Statements = ReturnType<typeof prepareStatements> & {
  usage: UsageStatements
  images: ImageStatements
}

export function prepareStatements(db: Database.Database) {
  return {
    exists: db.prepare('SELECT 1 FROM sessions WHERE id = ?'),
    header: db.prepare('SELECT header FROM sessions WHERE id = ?'),
    count: db.prepare('SELECT event_count FROM sessions WHERE id = ?'),
    insertSession: db.prepare(
      `INSERT INTO sessions (id, header, created_at, cwd, title, event_count, last_activity)
       VALUES (?, ?, ?, ?, NULL, 0, ?)`,
    ),
    insertEvent: db.prepare(
      'INSERT INTO events (session_id, seq, type, time, data, ignorable) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    updateSession: db.prepare(
      `UPDATE sessions SET event_count = ?, last_activity = ?, title = COALESCE(?, title, ?), turns = MAX(turns, ?),
         outcome = COALESCE(?, outcome) WHERE id = ?`,
    ),
    events: db.prepare(
      'SELECT seq, type, time, data, ignorable FROM events WHERE session_id = ? ORDER BY seq',
    ),
    list: db.prepare(
      'SELECT id, header, title, event_count, last_activity, turns, outcome, usage, usage_events FROM sessions',
    ),
    one: db.prepare(
      'SELECT id, header, title, event_count, last_activity, turns, outcome, usage, usage_events FROM sessions WHERE id = ?',
    ),
    idsBetween: db.prepare('SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?'),
    idsFrom: db.prepare('SELECT id FROM sessions WHERE id >= ? ORDER BY id LIMIT ?'),
    deleteEvents: db.prepare('DELETE FROM events WHERE session_id = ?'),
    deleteSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
  }
}

export interface EventRow {
  seq: number
  type: string
  time: number
  data: string
  ignorable: number
}

/** The session row after an append: count, activity, title (a given one wins), turns, outcome. */
export function updateSession(
  sql: Statements,
  id: SessionId,
  events: readonly SessionEvent[],
  seedLength: number,
): void {
  sql.updateSession.run(
    events.at(-1)!.seq + 1,
    events.at(-1)!.time,
    givenTitle(events, seedLength) ?? null,
    titleFrom(events, seedLength) ?? null,
    lastTurnNumber(events),
    outcomeOf(events) ?? null,
    id,
  )
}

/**
 * Ids starting with `prefix` and not with `except`: the index range `prefix <= id < upper`
 * of the primary key, as two ranges either side of `except`'s when it lies inside.
 */
export function idsWithPrefix(sql: Statements, prefix: string, limit: number, except?: string): SessionId[] {
  const range = (from: string, upper: string | undefined) =>
    (upper === undefined ? sql.idsFrom.all(from, limit) : sql.idsBetween.all(from, upper, limit)) as {
      id: string
    }[]
  const inside = except?.startsWith(prefix) === true
  const rows = range(prefix, inside ? except : prefixUpperBound(prefix))
  const after = inside ? prefixUpperBound(except!) : undefined
  if (after !== undefined) rows.push(...range(after, prefixUpperBound(prefix)))
  return rows
    .map((row) => row.id)
    .filter((id) => matchesPrefix(id, prefix, except))
    .slice(0, limit)
}
