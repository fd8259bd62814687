// Reading the instructions a session last logged (request assembly and the loader share it).

import type { SessionEvent, SessionEventMap } from '../session/types.js'

/** The last `instructions/loaded` event's data, or undefined when none was logged. */
export function lastInstructions(
  events: readonly SessionEvent[],
): SessionEventMap['instructions/loaded'] | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'instructions/loaded')
      return events[i]!.data as SessionEventMap['instructions/loaded']
  }
  return undefined
}
