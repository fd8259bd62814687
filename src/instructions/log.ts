// Reading the instructions a session last logged (request assembly and the loader share it).

import type { Session } from '../session/session.js'
import type { SessionEventMap } from '../session/types.js'

/** The last `instructions/loaded` event's data, or undefined when none was logged. */
export function lastInstructions(session: Session): SessionEventMap['instructions/loaded'] | undefined {
  return session.last('instructions/loaded')?.data
}
