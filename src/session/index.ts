// Public surface of the session seam.

import type { SessionStore } from './store.js'
import type { Session } from './session.js'

export { SessionErrorCode } from './errors.js'
export { isKnownEventType } from './event-types.js'
export { deriveHistory } from './history.js'
export { findNonJson } from './plain-json.js'
export { Session, validateEvent, validateSessionId } from './session.js'
export { SessionStore, completedPrefixLength } from './store.js'
export type { CreateSessionInit } from './store.js'
export { SESSION_FORMAT_VERSION } from './types.js'
export type {
  AssistantMessageData,
  CoreEventType,
  HookInvokedData,
  HookResultData,
  SessionEvent,
  SessionEventMap,
  SessionHeader,
  SessionId,
  SessionSummary,
  TurnEndReason,
} from './types.js'

declare module 'cordis' {
  interface Context {
    sessions: SessionStore
  }
  interface Events {
    /** A session and its agent were published (fired by the agent registry). */
    'session/created'(session: Session): void
  }
}
