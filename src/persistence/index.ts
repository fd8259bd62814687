// Public surface of the persistence seam.

import type { SessionPersistence } from './persistence.js'

export { PersistenceErrorCode } from './errors.js'
export { SessionPersistence, checkContinuation, notFound } from './persistence.js'
export { INTERRUPTED_TOOL_RESULT, closersForOpenTurn, shortenTitle, titleFrom } from './repair.js'
export type { LoadedSession, SessionLocation } from './types.js'
export { WriteBehindLog } from './write-behind.js'
export { MemorySessionBackend } from './memory/memory-backend.js'

declare module 'cordis' {
  interface Context {
    sessionPersistence: SessionPersistence
  }
}
