// Error codes of the session seam.

export const SessionErrorCode = {
  InvalidId: 'SESSION_INVALID_ID',
  InvalidEvent: 'SESSION_INVALID_EVENT',
  UnknownEventType: 'SESSION_UNKNOWN_EVENT_TYPE',
  NotFound: 'SESSION_NOT_FOUND',
  AlreadyLive: 'SESSION_ALREADY_LIVE',
  BadBoundary: 'SESSION_BAD_BOUNDARY',
  /** A turn number (fork at a turn) that is not a turn of the session that ended. */
  BadTurn: 'SESSION_BAD_TURN',
  Corrupt: 'SESSION_CORRUPT',
} as const
