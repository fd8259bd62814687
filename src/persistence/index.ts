// Public surface of the persistence seam.

import type { SessionPersistence } from './persistence.js'

export { PersistenceErrorCode } from './errors.js'
export type { JsonlBackendConfig } from './jsonl/backend.js'
export { JsonlSessionBackend } from './jsonl/backend.js'
export {
  bucketFor,
  decodeSessionId,
  encodeSessionId,
  MAX_PLAIN_ENCODED_LENGTH,
  MAX_SESSION_ID_LENGTH,
  NO_CWD_BUCKET,
} from './jsonl/layout.js'
export type { PersistenceChoice } from './load-backend.js'
export { loadPersistenceBackend } from './load-backend.js'
export { MemorySessionBackend } from './memory/memory-backend.js'
export { checkContinuation, notFound, prefixUpperBound, SessionPersistence } from './persistence.js'
export {
  closersForOpenTurn,
  givenTitle,
  INTERRUPTED_TOOL_RESULT,
  lastTurnNumber,
  sessionTitle,
  shortenTitle,
  titleFrom,
} from './repair.js'
export type { SqliteBackendConfig } from './sqlite/backend.js'
export { SqliteSessionBackend } from './sqlite/backend.js'
export type { LoadedSession, SessionLocation } from './types.js'
export { WriteBehindLog } from './write-behind.js'

declare module 'cordis' {
  interface Context {
    sessionPersistence: SessionPersistence
  }
}
