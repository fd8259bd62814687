// Types of the persistence seam.

import type { SessionEvent, SessionHeader } from '../session/types.js'

/** Where a backend keeps one session's dedicated log. `path` is absolute. */
export interface SessionLocation {
  readonly kind: string
  readonly path: string
}

export interface LoadedSession {
  header: SessionHeader
  events: SessionEvent[]
}
