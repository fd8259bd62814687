// The one session id resolver of every surface (CLI, chat, web, stdio, ACP): an exact id,
// or a unique prefix of at least MIN_ID_PREFIX characters. See docs/sessions-history.md.

import { DshError } from '../core/errors.js'
import { notFound } from '../persistence/persistence.js'
import { validateSessionId } from '../session/session.js'
import type { SessionId } from '../session/types.js'
import { HistoryErrorCode } from './errors.js'

/** The shortest prefix that may stand for an id: shorter ones are exact ids or nothing. */
export const MIN_ID_PREFIX = 6
/** Candidates an ambiguity error names (one more is asked for, to say "and more"). */
const MAX_NAMED = 5

/** Where ids are looked up: a persistence backend, or the session store (live sessions too). */
export interface SessionIdSource {
  exists(id: SessionId): Promise<boolean>
  idsWithPrefix(prefix: string, limit: number): Promise<SessionId[]>
}

/**
 * The full id `input` names: itself when a session has exactly that id (an exact id always
 * wins), else the one stored id it is a prefix of when it is at least MIN_ID_PREFIX long.
 * Rejects with the persistence seam's "unknown session" (PERSISTENCE_NOT_FOUND) when nothing
 * matches, and with HISTORY_AMBIGUOUS_ID, naming the candidates, when several do.
 */
export async function resolveSessionId(source: SessionIdSource, input: string): Promise<SessionId> {
  validateSessionId(input)
  if (await source.exists(input)) return input
  if (input.length < MIN_ID_PREFIX) throw notFound(input)
  const candidates = [...new Set(await source.idsWithPrefix(input, MAX_NAMED + 1))].sort()
  if (candidates.length === 1) return candidates[0]!
  if (candidates.length === 0) throw notFound(input)
  throw ambiguous(input, candidates)
}

function ambiguous(input: string, candidates: readonly SessionId[]): DshError {
  const named = candidates.slice(0, MAX_NAMED).join(', ')
  const more = candidates.length > MAX_NAMED ? ', and more' : ''
  return new DshError(
    `session id prefix ${JSON.stringify(input)} is ambiguous: ${named}${more} (give more characters)`,
    HistoryErrorCode.AmbiguousId,
    { userFacing: true },
  )
}
