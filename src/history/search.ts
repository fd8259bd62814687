// `dsh sessions search`, the web UI's search box and the chat's picker: candidates come
// from the backend's own index (ripgrep, FTS5, tsvector), the decision and the ranking
// are made here, once, so every backend gives the same results in the same order.

import { DshError } from '../core/errors.js'
import type { SessionPersistence } from '../persistence/persistence.js'
import type { SearchDocument, SearchRequest, SearchTerm, SessionBound } from '../persistence/search-text.js'
import type { SessionEventMap, SessionId, SessionSummary } from '../session/types.js'
import { HistoryErrorCode } from './errors.js'
import { KIND_WEIGHT, matchDocument } from './match.js'
import { parseQuery } from './query.js'
import type { SearchOptions, SearchResult } from './types.js'

export const DEFAULT_SEARCH_LIMIT = 20
const DAY_MS = 86_400_000
/** A session a week old counts half as much as one from today, with the same match. */
const RECENCY_HALF_DAYS = 7

type Best = Pick<SearchResult, 'seq' | 'kind' | 'snippet' | 'highlights'> & {
  turn: number | undefined
  score: number
  matches: number
}

/** The best matching document of each session, and how many of its documents match. */
class BestPerSession {
  readonly best = new Map<SessionId, Best>()

  constructor(
    private readonly terms: SearchTerm[],
    private readonly reasoning: boolean,
  ) {}

  readonly visit = (doc: SearchDocument): void => {
    if (doc.kind === 'reasoning' && !this.reasoning) return
    const found = matchDocument(doc.text, doc.kind, this.terms)
    if (!found) return
    const known = this.best.get(doc.sessionId)
    if (known) known.matches++
    if (known && (known.score > found.score || (known.score === found.score && known.seq > doc.seq))) return
    this.best.set(doc.sessionId, {
      turn: doc.turn,
      seq: doc.seq,
      kind: doc.kind,
      snippet: found.snippet,
      highlights: found.highlights,
      score: found.score,
      matches: known?.matches ?? 1,
    })
  }
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
  const request: SearchRequest = { terms, cwd: options.cwd, reasoning, onSkipped: options.onSkipped }
  const now = options.now ?? Date.now()
  const bounds = await persistence.searchBounds(request)
  let results: Found[]
  if (bounds === undefined) {
    const found = new BestPerSession(terms, reasoning)
    await persistence.searchDocuments(request, found.visit)
    results = (await kept(persistence, options, found.best, now)).sort(byRank).slice(0, limit)
  } else {
    results = await boundedSearch(persistence, options, request, bounds, limit, now)
  }
  const unknown = results.filter((result) => result.turn === undefined)
  if (unknown.length > 0) {
    const turns = await persistence.turnsAt(unknown)
    unknown.forEach((result, index) => {
      result.turn = turns[index]
    })
  }
  return results as SearchResult[]
}

/**
 * The same results from an indexed backend, reading the text of only the sessions that
 * can still make the first `limit`: sessions go in order of the best score they could
 * reach (their bound), a batch at a time, until the `limit`th result found ranks above
 * the next bound. Exact: a session left unread could at best tie that bound, and the
 * order among equal scores (last activity, id) is known before any text is read.
 */
async function boundedSearch(
  persistence: SessionPersistence,
  options: SearchOptions,
  request: SearchRequest,
  bounds: SessionBound[],
  limit: number,
  now: number,
): Promise<Found[]> {
  const ranked = bounds
    .filter(
      (bound) =>
        (options.since === undefined || bound.lastActivity >= options.since) &&
        (options.until === undefined || bound.lastActivity <= options.until),
    )
    .map((bound) => ({
      bound,
      sessionId: bound.sessionId,
      lastActivity: bound.lastActivity,
      score: upperScore(bound, now),
    }))
    .sort(byRank)
  let results: Found[] = []
  // Twice the limit at first: a few loose bounds above the winners then cost no second round.
  let batch = 2 * limit
  for (let next = 0; next < ranked.length; ) {
    const last = results[limit - 1]
    if (last !== undefined && byRank(last, ranked[next]!) < 0) break
    const sessions = ranked.slice(next, next + batch).map((entry) => entry.bound)
    next += sessions.length
    batch *= 2
    const found = new BestPerSession(request.terms, request.reasoning)
    await persistence.searchDocumentsOf(request, sessions, found.visit)
    results = results.concat(await kept(persistence, options, found.best, now))
    results.sort(byRank)
    results.length = Math.min(results.length, limit)
  }
  return results
}

/** The highest score a session's bound allows (the same formula as `toResult`, on bounds). */
function upperScore(bound: SessionBound, now: number): number {
  let best = 0
  for (const { kind, counted } of bound.kinds) best = Math.max(best, counted * KIND_WEIGHT[kind])
  return score(best, Math.max(bound.docs, 1), bound.lastActivity, now)
}

/** Score first, then the more recent, then the smaller id: a total order. */
function byRank(
  a: Pick<SearchResult, 'score' | 'lastActivity' | 'sessionId'>,
  b: Pick<SearchResult, 'score' | 'lastActivity' | 'sessionId'>,
): number {
  return (
    b.score - a.score ||
    b.lastActivity - a.lastActivity ||
    (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0)
  )
}

/** The found sessions that pass the filters, as results (unsorted). */
async function kept(
  persistence: SessionPersistence,
  options: SearchOptions,
  best: Map<SessionId, Best>,
  now: number,
): Promise<Found[]> {
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
  return models.map((summary) => toResult(summary, best.get(summary.header.id)!, now))
}

/**
 * Match quality and recency together. Rounded: backends may differ in the last bits of
 * nothing, never in the order. Never smaller for a larger `best` or `matches` (bounds rely on it).
 */
function score(best: number, matches: number, lastActivity: number, now: number): number {
  const ageDays = Math.max(0, now - lastActivity) / DAY_MS
  const recency = 1 / (1 + ageDays / RECENCY_HALF_DAYS)
  const quality = best + Math.log2(matches)
  return Math.round(quality * recency * 1e6) / 1e6
}

/** A result whose turn is still unknown until the backend is asked (`turnsAt`). */
type Found = Omit<SearchResult, 'turn'> & { turn: number | undefined }

function toResult(summary: SessionSummary, best: Best, now: number): Found {
  const result: Found = {
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
    score: score(best.score, best.matches, summary.lastActivity, now),
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
