// The ids of a Claude Code export (line `uuid`s, `message.id`, `requestId`): stable, derived
// from the session that first wrote an event and its number, so two exports of one session
// agree and a fork's copied turns carry the ids its parent's export gave them.

import { createHash } from 'node:crypto'
import type { SessionEvent, SessionEventMap } from '../../session/types.js'

export function hash(id: string, seq: number, part = ''): string {
  return createHash('sha256')
    .update(`${id}\0${seq}${part ? `\0${part}` : ''}`)
    .digest('hex')
}

/** A stable uuid-shaped id per event. */
export function uuidFor(id: string, seq: number, part = ''): string {
  const hex = hash(id, seq, part)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/**
 * The session that first wrote each event, by position: a fork's seed is its parent's events
 * up to a `session/forked {parentSession}` marker, so an event belongs to the parent named by
 * the first marker after it (a fork of a fork has one marker per copy, nearest parent last),
 * else to `sessionId`. The copies then hash to the ids of the parent's own export, which
 * readers de-duplicate on (ccusage: `message.id` + `requestId`), as they do Claude Code's
 * copies of a resumed conversation.
 */
export function eventOwners(sessionId: string, events: readonly SessionEvent[]): string[] {
  const owners = new Array<string>(events.length)
  let owner = sessionId
  for (let i = events.length - 1; i >= 0; i--) {
    owners[i] = owner
    const event = events[i]!
    if (event.type === 'session/forked')
      owner = (event.data as SessionEventMap['session/forked']).parentSession
  }
  return owners
}
