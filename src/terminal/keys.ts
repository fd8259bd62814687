// Named keys the model may press (`terminal_send {keys}`) and the bytes a terminal sends
// for them; `text` is typed as is, with a newline pressed as Enter.

import { DshError } from '../core/errors.js'
import { TerminalErrorCode } from './errors.js'

const NAMED: Readonly<Record<string, string>> = {
  enter: '\r',
  return: '\r',
  tab: '\t',
  esc: '\x1b',
  escape: '\x1b',
  backspace: '\x7f',
  space: ' ',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  delete: '\x1b[3~',
  insert: '\x1b[2~',
  f1: '\x1bOP',
  f2: '\x1bOQ',
  f3: '\x1bOR',
  f4: '\x1bOS',
  f10: '\x1b[21~',
}

/** What the model is told it may press. */
export const KEY_NAMES =
  'Enter, Tab, Esc, Backspace, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Delete, Insert, F1-F4, F10, Ctrl-A … Ctrl-Z (Ctrl-C interrupts, Ctrl-D ends input, Ctrl-Z suspends)'

/** The bytes for one key name (case-insensitive; `Ctrl-C`, `Ctrl+C`, `C-c` and `^C` alike). Throws TERMINAL_UNKNOWN_KEY. */
export function keyBytes(name: string): string {
  const key = name.trim().toLowerCase()
  const named = NAMED[key]
  if (named !== undefined) return named
  const ctrl = /^(?:ctrl[-+]|c-|\^)(.)$/.exec(key)?.[1]
  if (ctrl !== undefined) {
    const code = ctrl.toUpperCase().charCodeAt(0)
    // @, A-Z, [, \, ], ^, _ map onto the control codes 0-31.
    if (code >= 64 && code <= 95) return String.fromCharCode(code - 64)
  }
  throw new DshError(
    `unknown key ${JSON.stringify(name)}; known keys: ${KEY_NAMES}`,
    TerminalErrorCode.UnknownKey,
  )
}

/** Text as typed: a newline (or CR LF) is the Enter key. */
export function typedText(text: string): string {
  return text.replace(/\r?\n/g, '\r')
}
