// The one session id resolver of every surface (CLI, chat, web, stdio, ACP): an exact id,
// or a unique prefix of at least MIN_ID_PREFIX characters. See docs/sessions-history.md.

import { DshError } from '../core/errors.js'
import { notFound } from '../persistence/persistence.js'
import { SUBAGENT_ID_INFIX } from '../session/id.js'
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
  /** At most `limit` ids starting with `prefix`, leaving out those starting with `except`. */
  idsWithPrefix(prefix: string, limit: number, except?: string): Promise<SessionId[]>
}

/**
 * The full id `input` names: itself when a session has exactly that id (an exact id always
 * wins), else the one stored id it is a prefix of when it is at least MIN_ID_PREFIX long.
 * A prefix matching one session and only that session's own sub-agents names the session.
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
  const parent = commonParent(input, candidates)
  if (parent !== undefined && (candidates.includes(parent) || (await source.exists(parent)))) {
    // The candidates asked for may be a few of many: nothing outside the family may match.
    const others = await source.idsWithPrefix(input, 2, parent + SUBAGENT_ID_INFIX)
    if (others.length === 1 && others[0] === parent) return parent
  }
  throw ambiguous(input, candidates)
}

/**
 * The id every candidate is or descends from through `-sub-` past the end of `input`
 * (a prefix that reaches into a `-sub-` names sub-agents, not their parent), when they share one.
 */
function commonParent(input: string, candidates: readonly SessionId[]): SessionId | undefined {
  const parents = new Set(
    candidates.map((id) => {
      const at = id.indexOf(SUBAGENT_ID_INFIX, input.length)
      return at === -1 ? id : id.slice(0, at)
    }),
  )
  return parents.size === 1 ? [...parents][0] : undefined
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
