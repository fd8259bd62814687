// Error codes of the terminal seam.

export const TerminalErrorCode = {
  /** The agent already has as many terminals as the cap allows. */
  TooMany: 'TERMINAL_TOO_MANY',
  /** No terminal with that id belongs to the caller. */
  NotFound: 'TERMINAL_NOT_FOUND',
  /** A key name in `keys` is not one the terminal knows. */
  UnknownKey: 'TERMINAL_UNKNOWN_KEY',
  /** Columns or rows outside the allowed range. */
  BadSize: 'TERMINAL_BAD_SIZE',
  /** The terminal's program has exited: it reads no more input. */
  Exited: 'TERMINAL_EXITED',
  /** The pseudo-terminal could not be started. */
  SpawnFailed: 'TERMINAL_SPAWN_FAILED',
  /** A line a send would run at a shell cannot be told (edited with keys not followed). */
  UnknownLine: 'TERMINAL_UNKNOWN_LINE',
  /** A `ready` or `wait_for` pattern took longer than its budget to match (it backtracks). */
  PatternTooSlow: 'TERMINAL_PATTERN_TOO_SLOW',
  /** The terminal service was unloaded. */
  Closed: 'TERMINAL_CLOSED',
} as const
