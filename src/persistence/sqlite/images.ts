// The SQLite backend's image blob table: a session's images, each stored once under its
// SHA-256, beside the events in the same database file.

import type Database from 'better-sqlite3'

/** Schema entry "session images (blob table)": created when missing, like the other tables. */
export const IMAGES_SCHEMA = `
CREATE TABLE IF NOT EXISTS session_images (
  session_id TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (session_id, sha256)
) WITHOUT ROWID;
`

export function prepareImageStatements(db: Database.Database) {
  return {
    // A session's images may be stored before its first event (the prompt's images go first).
    put: db.prepare('INSERT OR IGNORE INTO session_images (session_id, sha256, data) VALUES (?, ?, ?)'),
    get: db.prepare<[string, string], { data: Buffer }>(
      'SELECT data FROM session_images WHERE session_id = ? AND sha256 = ?',
    ),
    deleteAll: db.prepare('DELETE FROM session_images WHERE session_id = ?'),
  }
}

export type ImageStatements = ReturnType<typeof prepareImageStatements>
