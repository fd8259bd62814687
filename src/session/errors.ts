// Error codes of the session seam.

export const SessionErrorCode = {
  InvalidId: 'SESSION_INVALID_ID',
  InvalidEvent: 'SESSION_INVALID_EVENT',
  UnknownEventType: 'SESSION_UNKNOWN_EVENT_TYPE',
  NotFound: 'SESSION_NOT_FOUND',
  AlreadyLive: 'SESSION_ALREADY_LIVE',
  BadBoundary: 'SESSION_BAD_BOUNDARY',
  Corrupt: 'SESSION_CORRUPT',
} as const
