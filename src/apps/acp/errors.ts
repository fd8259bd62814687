// Error codes of the ACP front end, carried in `error.data.code` of a -32000 answer.

export const AcpErrorCode = {
  TurnRunning: 'ACP_TURN_RUNNING',
  TurnFailed: 'ACP_TURN_FAILED',
  BadCwd: 'ACP_BAD_CWD',
  UnsupportedContent: 'ACP_UNSUPPORTED_CONTENT',
  NoModes: 'ACP_NO_MODES',
} as const
