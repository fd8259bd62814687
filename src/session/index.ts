// Public surface of the session seam.

import type { Session } from './session.js'
import type { SessionStore } from './store.js'

export { prunedToolOutput, summaryMessage } from './compaction-messages.js'
export { SessionErrorCode } from './errors.js'
export { isKnownEventType } from './event-types.js'
export { parseStoredHeader } from './header-schema.js'
export { deriveHistory, historyAfterCompaction } from './history.js'
export { MAX_SESSION_ID_LENGTH, sessionIdProblem } from './id.js'
export { findNonJson } from './plain-json.js'
export { Session, validateEvent, validateSessionId } from './session.js'
export {
  describeSettings,
  recordedSettings,
  SETTING_NAMES,
  sameSettings,
  sessionSettings,
  turnEndBoundary,
} from './settings.js'
export type { CreateSessionInit } from './store.js'
export { completedPrefixLength, forkSeed, SessionStore } from './store.js'
export {
  RAW_TOOL_INPUT_KEY,
  type TranscriptBlock,
  type TranscriptMessage,
  toolUseInput,
  transcriptMessage,
} from './transcript-message.js'
export type {
  AssistantMessageData,
  ContextCompactedData,
  CoreEventType,
  HookInvokedData,
  HookResultData,
  SessionEvent,
  SessionEventMap,
  SessionHeader,
  SessionId,
  SessionSettings,
  SessionSummary,
  TurnEndReason,
} from './types.js'
export { SESSION_FORMAT_VERSION } from './types.js'

declare module 'cordis' {
  interface Context {
    sessions: SessionStore
  }
  interface Events {
    /** A session and its agent were published (fired by the agent registry). */
    'session/created'(session: Session): void
  }
}
