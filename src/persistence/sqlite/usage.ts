// The usage ledger in a session's row (`usage`, and `usage_events`: how many of its events
// the ledger covers). Appends keep it in their transaction; a database made before the
// columns gets every session's ledger once; a row extended by a writer that kept no ledger
// (an older dsh) is caught up from the events it lacks, on read, without writing.

import type Database from 'better-sqlite3'
import type { SessionEvent } from '../../session/types.js'
import { foldUsage, ledgerOf, type UsageLedger } from '../../usage/ledger.js'
import { parseLedger } from '../../usage/ledger-schema.js'
import { USAGE_EVENT_TYPES_SQL } from '../../usage/totals.js'

export interface UsageRow {
  usage: string | null
  usage_events: number
  event_count: number
}

export interface UsageStatements {
  row: Database.Statement
  events: Database.Statement
  update: Database.Statement
}

export function prepareUsageStatements(db: Database.Database): UsageStatements {
  return {
    row: db.prepare('SELECT usage, usage_events, event_count FROM sessions WHERE id = ?'),
    events: db.prepare(
      `SELECT seq, type, time, data FROM events WHERE session_id = ? AND seq >= ? AND type IN ${USAGE_EVENT_TYPES_SQL} ORDER BY seq`,
    ),
    update: db.prepare('UPDATE sessions SET usage = ?, usage_events = ? WHERE id = ?'),
  }
}

/** Adds the columns to a database made before them, with every stored session's ledger. */
export function addUsageColumns(db: Database.Database, columns: ReadonlySet<string>): void {
  if (columns.has('usage')) return
  db.transaction(() => {
    db.exec(`ALTER TABLE sessions ADD COLUMN usage TEXT;
      ALTER TABLE sessions ADD COLUMN usage_events INTEGER NOT NULL DEFAULT 0;`)
    const sql = prepareUsageStatements(db)
    const ids = db.prepare('SELECT id FROM sessions').pluck().all() as string[]
    for (const id of ids) {
      const row = sql.row.get(id) as UsageRow
      sql.update.run(JSON.stringify(storedLedger(sql, id, row)), row.event_count, id)
    }
  })()
}

/** The ledger of every stored event of session `id`, from its row and the events it does not cover yet. */
export function storedLedger(sql: UsageStatements, id: string, row: UsageRow): UsageLedger {
  const stored = row.usage === null ? undefined : parseLedger(parseJson(row.usage))
  // No (readable) ledger: fold from the first event.
  const from = stored ? row.usage_events : 0
  if (stored && from === row.event_count) return stored
  const rows = sql.events.all(id, from) as { seq: number; type: string; time: number; data: string }[]
  const events: SessionEvent[] = rows.map(({ seq, type, time, data }) => ({
    seq,
    type,
    time,
    data: JSON.parse(data),
  }))
  return stored ? foldUsage(stored, events) : ledgerOf(events)
}

/**
 * Folds `events` into the row's ledger. Call inside the append transaction, before the
 * events are inserted and the row's count moves (the catch-up reads the stored tail).
 */
export function updateUsage(sql: UsageStatements, id: string, events: readonly SessionEvent[]): void {
  const row = sql.row.get(id) as UsageRow
  const ledger = foldUsage(storedLedger(sql, id, row), events)
  sql.update.run(JSON.stringify(ledger), row.event_count + events.length, id)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined // not a ledger: folded again from the events
  }
}
