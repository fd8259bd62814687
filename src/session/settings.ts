// The settings a session restores on resume and fork (model, effort, permission mode), as
// its log records them in `session/settings` events (whole snapshots). Logs written before those events
// existed still give the model and effort of their last `request/config`.

import { DshError } from '../core/errors.js'
import { SessionErrorCode } from './errors.js'
import type { Session } from './session.js'
import type { SessionEvent, SessionEventMap, SessionSettings } from './types.js'

export const SETTING_NAMES = ['model', 'effort', 'mode'] as const

const EFFORTS: readonly string[] = ['off', 'low', 'high', 'max']

/**
 * The settings the log holds now: the last `session/settings` event (each one is a whole
 * snapshot), else, for logs older than those events, the model and effort of the last
 * `request/config`.
 */
export function recordedSettings(events: readonly SessionEvent[]): SessionSettings {
  let request: SessionEventMap['request/config'] | undefined
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'session/settings') return pickSettings(event.data as SessionSettings)
    if (event.type === 'request/config' && request === undefined)
      request = event.data as SessionEventMap['request/config']
  }
  return request ? pickSettings(request) : {}
}

/** `recordedSettings` of a live session, without a scan. */
export function sessionSettings(session: Session): SessionSettings {
  const settings = session.last('session/settings')
  if (settings) return pickSettings(settings.data)
  const request = session.last('request/config')
  return request ? pickSettings(request.data) : {}
}

function pickSettings(data: SessionSettings): SessionSettings {
  const settings: Record<string, string> = {}
  for (const name of SETTING_NAMES) {
    const value = data[name]
    if (typeof value !== 'string') continue
    // A hand-edited log's unknown effort is dropped, not sent to the model.
    if (name === 'effort' && !EFFORTS.includes(value)) continue
    settings[name] = value
  }
  return settings as SessionSettings
}

export function sameSettings(a: SessionSettings, b: SessionSettings): boolean {
  return SETTING_NAMES.every((name) => a[name] === b[name])
}

/** `model deepseek-pro, effort high, mode plan` (the fields present, in that order). */
export function describeSettings(settings: SessionSettings): string {
  return SETTING_NAMES.filter((name) => settings[name] !== undefined)
    .map((name) => `${name} ${settings[name]}`)
    .join(', ')
}

/**
 * The length of the log prefix that ends with turn `turn`'s `turn/end`: where a fork "at
 * turn N" cuts. A user-facing SESSION_BAD_TURN error for 0, a non-integer, a turn past the
 * last one, or a turn that never ended.
 */
export function turnEndBoundary(events: readonly SessionEvent[], turn: number): number {
  let last = 0
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'turn/start') last = (event.data as SessionEventMap['turn/start']).turn
    if (event.type === 'turn/end' && (event.data as SessionEventMap['turn/end']).turn === turn) {
      if (Number.isInteger(turn) && turn >= 1) return i + 1
    }
  }
  if (!Number.isInteger(turn) || turn < 1 || turn > last) {
    const range = last === 0 ? 'the session has no turns yet' : `its turns are 1 to ${last}`
    throw new DshError(`cannot fork at turn ${turn}: ${range}`, SessionErrorCode.BadTurn, {
      userFacing: true,
    })
  }
  throw new DshError(`cannot fork at turn ${turn}: it has not ended`, SessionErrorCode.BadTurn, {
    userFacing: true,
  })
}
