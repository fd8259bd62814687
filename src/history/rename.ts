// Renaming a session: a `session/title` event appended through the store, so every backend
// keeps it in the log and lists it (the latest given title wins over the first prompt).

import { DshError } from '../core/errors.js'
import type { SessionPersistence } from '../persistence/persistence.js'
import type { SessionEvent, SessionEventMap, SessionId } from '../session/types.js'
import { HistoryErrorCode } from './errors.js'

/** Longest title kept, in characters (listings show at most 80 of them). */
export const MAX_TITLE_LENGTH = 200

/** Controls (C0, DEL, C1, line separators) left once whitespace is folded: never part of a title. */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true
  }
  return false
}

/** The title as stored: one line, whitespace runs folded; a one-line error when empty or not text. */
export function normalizeTitle(input: string): string {
  const title = input.replace(/\s+/g, ' ').trim()
  if (title === '') throw invalidTitle('the title is empty')
  if (hasControl(title)) throw invalidTitle('the title contains a control character')
  if (title.length > MAX_TITLE_LENGTH) {
    throw invalidTitle(`the title is ${title.length} characters long; the maximum is ${MAX_TITLE_LENGTH}`)
  }
  return title
}

/** The data of a person's `session/title` event. */
export function titleData(title: string): SessionEventMap['session/title'] {
  return { title: normalizeTitle(title), source: 'user' }
}

/**
 * Renames a stored session that is not live in this process: takes its writer lease
 * (PERSISTENCE_LOCKED, naming the holder, while another process writes it), appends the
 * `session/title` event and releases the lease. `id` is a full id (see resolveSessionId).
 */
export async function renameStored(
  persistence: SessionPersistence,
  id: SessionId,
  title: string,
): Promise<void> {
  const data = titleData(title)
  const { events } = await persistence.open(id)
  try {
    const event: SessionEvent = {
      seq: events.length,
      type: 'session/title',
      time: Date.now(),
      data,
      ignorable: true,
    }
    await persistence.append(id, [event])
  } finally {
    await persistence.release(id)
  }
}

function invalidTitle(message: string): DshError {
  return new DshError(message, HistoryErrorCode.InvalidTitle, { userFacing: true })
}
