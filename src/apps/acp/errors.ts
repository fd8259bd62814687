// Error codes of the ACP front end, carried in `error.data.code` of a -32000 answer.

export const AcpErrorCode = {
  TurnRunning: 'ACP_TURN_RUNNING',
  TurnFailed: 'ACP_TURN_FAILED',
  BadCwd: 'ACP_BAD_CWD',
  UnsupportedContent: 'ACP_UNSUPPORTED_CONTENT',
  NoModes: 'ACP_NO_MODES',
  /** An incoming message over ACP_MAX_MESSAGE_BYTES: dropped unread, its request answered with this. */
  MessageTooLarge: 'ACP_MESSAGE_TOO_LARGE',
} as const
