// `dsh sessions search`, the web UI's search box and the chat's picker: candidates come
// from the backend's own index (ripgrep, FTS5, tsvector), the decision and the ranking
// are made here, once, so every backend gives the same results in the same order.

import { DshError } from '../core/errors.js'
import type { SessionPersistence } from '../persistence/persistence.js'
import type { SearchDocument } from '../persistence/search-text.js'
import type { SessionEventMap, SessionId, SessionSummary } from '../session/types.js'
import { HistoryErrorCode } from './errors.js'
import { matchDocument } from './match.js'
import { parseQuery } from './query.js'
import type { SearchOptions, SearchResult } from './types.js'

export const DEFAULT_SEARCH_LIMIT = 20
const DAY_MS = 86_400_000
/** A session a week old counts half as much as one from today, with the same match. */
const RECENCY_HALF_DAYS = 7

type Best = Pick<SearchResult, 'turn' | 'seq' | 'kind' | 'snippet' | 'highlights'> & {
  score: number
  matches: number
}

/**
 * Searches stored sessions; never writes. Rejects with HISTORY_INVALID_QUERY for a bad
 * query (before any read). Logs that cannot be read are skipped and named in `onSkipped`.
 */
export async function searchSessions(
  persistence: SessionPersistence,
  options: SearchOptions,
): Promise<SearchResult[]> {
  const terms = parseQuery(options.query)
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT
  if (!Number.isInteger(limit) || limit < 1) throw invalidFilter(`--limit must be a positive integer`)
  const reasoning = options.reasoning === true
  const best = new Map<SessionId, Best>()
  const visit = (doc: SearchDocument): void => {
    if (doc.kind === 'reasoning' && !reasoning) return
    const found = matchDocument(doc.text, doc.kind, terms)
    if (!found) return
    const known = best.get(doc.sessionId)
    if (known) known.matches++
    if (known && (known.score > found.score || (known.score === found.score && known.seq > doc.seq))) return
    best.set(doc.sessionId, {
      turn: doc.turn,
      seq: doc.seq,
      kind: doc.kind,
      snippet: found.snippet,
      highlights: found.highlights,
      score: found.score,
      matches: known?.matches ?? 1,
    })
  }
  await persistence.searchDocuments(
    { terms, cwd: options.cwd, reasoning, onSkipped: options.onSkipped },
    visit,
  )
  if (best.size === 0) return []
  const summaries = await persistence.summariesOf(new Set(best.keys()))
  const kept: SessionSummary[] = []
  for (const summary of summaries) {
    if (!best.has(summary.header.id)) continue
    if (options.cwd !== undefined && summary.header.cwd !== options.cwd) continue
    if (options.since !== undefined && summary.lastActivity < options.since) continue
    if (options.until !== undefined && summary.lastActivity > options.until) continue
    if (
      options.status !== undefined &&
      summary.outcome !== options.status &&
      summary.status !== options.status
    )
      continue
    kept.push(summary)
  }
  const models = options.model === undefined ? kept : await usingModel(persistence, kept, options.model)
  const now = options.now ?? Date.now()
  const results = models.map((summary) => toResult(summary, best.get(summary.header.id)!, now))
  results.sort(
    (a, b) =>
      b.score - a.score ||
      b.lastActivity - a.lastActivity ||
      (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0),
  )
  return results.slice(0, limit)
}

function toResult(summary: SessionSummary, best: Best, now: number): SearchResult {
  const ageDays = Math.max(0, now - summary.lastActivity) / DAY_MS
  const recency = 1 / (1 + ageDays / RECENCY_HALF_DAYS)
  const quality = best.score + Math.log2(best.matches)
  const result: SearchResult = {
    sessionId: summary.header.id,
    createdAt: summary.header.createdAt,
    lastActivity: summary.lastActivity,
    turns: summary.turns,
    turn: best.turn,
    seq: best.seq,
    kind: best.kind,
    snippet: best.snippet,
    highlights: best.highlights,
    matches: best.matches,
    // Rounded: backends may differ in the last bits of nothing, never in the order.
    score: Math.round(quality * recency * 1e6) / 1e6,
  }
  if (summary.title !== undefined) result.title = summary.title
  if (summary.header.cwd !== undefined) result.cwd = summary.header.cwd
  if (summary.outcome !== undefined) result.outcome = summary.outcome
  if (summary.status !== undefined) result.status = summary.status
  return result
}

/** The sessions among `summaries` whose requests named `model` (read from their logs). */
async function usingModel(
  persistence: SessionPersistence,
  summaries: SessionSummary[],
  model: string,
): Promise<SessionSummary[]> {
  const kept: SessionSummary[] = []
  for (const summary of summaries) {
    const { events } = await persistence.load(summary.header.id)
    const used = events.some(
      (event) =>
        event.type === 'request/config' && (event.data as SessionEventMap['request/config']).model === model,
    )
    if (used) kept.push(summary)
  }
  return kept
}

/** Parses a `--since`/`--until` value: an ISO date or date-time, or a relative age (`3d`, `12h`, `2w`). */
export function parseDateFilter(flag: string, value: string, now = Date.now()): number {
  const relative = /^(\d+)\s*([mhdw])$/.exec(value.trim())
  if (relative) {
    const unit = { m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS }[relative[2] as 'm' | 'h' | 'd' | 'w']
    return now - Number(relative[1]) * unit
  }
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(time)) {
    throw invalidFilter(
      `${flag} ${JSON.stringify(value)} is not a date (use 2026-12-01, 2026-12-01T14:00 or an age such as 3d, 12h, 2w)`,
    )
  }
  return time
}

function invalidFilter(message: string): DshError {
  return new DshError(message, HistoryErrorCode.InvalidFilter, { userFacing: true })
}
