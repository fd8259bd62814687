// Types of the history service.

import type { DocumentKind } from '../persistence/search-text.js'
import type { SessionId, SessionOutcome, SessionStatus } from '../session/types.js'

export interface SearchOptions {
  /** The query, in the syntax of `parseQuery`. */
  query: string
  /** Only sessions of this folder; undefined: every folder. */
  cwd?: string
  /** Only sessions active at or after / at or before these epoch ms. */
  since?: number
  until?: number
  /** Only sessions that used this model (a `request/config` naming it). */
  model?: string
  /** Only sessions whose last turn ended so (`completed`, `interrupted`, `open`, …) or in this status (`live`, `idle`). */
  status?: string
  /** Also search the model's reasoning. */
  reasoning?: boolean
  /** At most this many results (default 20). */
  limit?: number
  /** The time ranking measures recency from (default: now). */
  now?: number
  /** A log or row that could not be read, named (the search goes on without it). */
  onSkipped?: (where: string, reason: string) => void
}

/** One session found, with its best matching piece of text. */
export interface SearchResult {
  sessionId: SessionId
  title?: string
  cwd?: string
  createdAt: number
  lastActivity: number
  turns: number
  outcome?: SessionOutcome
  status?: SessionStatus
  /** Where the best match is: its turn (0 before the first), event seq and kind of text. */
  turn: number
  seq: number
  kind: DocumentKind
  /** The text around the match on one line, and the matched words' [start, end) ranges in it. */
  snippet: string
  highlights: [number, number][]
  /** Matching documents in the session. */
  matches: number
  /** Match quality and recency together; results are sorted by it, highest first. */
  score: number
}
