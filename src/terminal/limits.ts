// The terminal seam's documented defaults and bounds (no imports: config reads them too).

export const DEFAULT_MAX_TERMINALS_PER_SESSION = 8
export const DEFAULT_SCROLLBACK_LINES = 1_000
export const DEFAULT_MAX_READ_LINES = 200
export const DEFAULT_TERMINAL_COLS = 120
export const DEFAULT_TERMINAL_ROWS = 30
export const MAX_TERMINAL_COLS = 500
export const MAX_TERMINAL_ROWS = 200
