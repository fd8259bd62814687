// Public surface of the terminal seam: persistent terminals on a pseudo-terminal with an
// emulated screen (`ctx.terminals`), and the events front ends show them with.

import type { TerminalService } from './service.js'
import type { TerminalInfo } from './types.js'

export { TerminalErrorCode } from './errors.js'
export { KEY_NAMES, keyBytes, typedText } from './keys.js'
export {
  DEFAULT_MAX_READ_LINES,
  DEFAULT_MAX_TERMINALS_PER_SESSION,
  DEFAULT_SCROLLBACK_LINES,
  DEFAULT_TERMINAL_COLS,
  DEFAULT_TERMINAL_ROWS,
  MAX_TERMINAL_COLS,
  MAX_TERMINAL_ROWS,
} from './limits.js'
export { compilePattern, PATTERN_BUDGET_MS, testPattern } from './pattern.js'
export type { ScreenSnapshot } from './screen.js'
export type { TerminalServiceConfig } from './service.js'
export { checkSize, TerminalService } from './service.js'
export { isShell, readsKeysAtOnce, shellWaits, withoutPrompts } from './shells.js'
export { stripControls } from './strip.js'
export { TerminalSession } from './terminal.js'
export {
  continuesLine,
  EMPTY_LINE,
  type EnteredLine,
  expandsHistory,
  type LineState,
  type TypedLines,
  typedElsewhere,
  typeInto,
} from './typed-line.js'
export type {
  ReadOutcome,
  TerminalInfo,
  TerminalOwner,
  TerminalReading,
  TerminalReadOptions,
  TerminalStartRequest,
  TerminalStatus,
} from './types.js'

declare module 'cordis' {
  interface Context {
    terminals: TerminalService
  }
  interface Events {
    /** A terminal started. */
    'terminal/started'(info: TerminalInfo): void
    /** A terminal's screen or status changed (at most every `liveIntervalMs` per terminal). */
    'terminal/updated'(info: TerminalInfo): void
    /** A terminal was killed and forgotten. */
    'terminal/closed'(info: TerminalInfo): void
  }
}
