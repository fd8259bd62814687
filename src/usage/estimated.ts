// Whether a turn's usage holds an estimate: a step whose stream was cut before the server
// reported its usage (see `Usage.estimated`). Front ends say so beside the figures.

import type { SessionEvent, SessionEventMap } from '../session/types.js'
import { usageEffect } from './totals.js'

export function turnUsageEstimated(events: readonly SessionEvent[], turn: number): boolean {
  let current = 0
  for (const event of events) {
    if (event.type === 'turn/start') current = (event.data as SessionEventMap['turn/start']).turn
    else if (current === turn) {
      const effect = usageEffect(event)
      if (effect?.kind === 'step' && effect.usage.estimated === true) return true
    }
  }
  return false
}

/** The words that follow a usage line holding an estimate. */
export const ESTIMATED_NOTE = '(estimated: the stream was cut before the server reported usage)'
