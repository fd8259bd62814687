// What a shell's line editor holds after some keystrokes: the model's typing is followed so a
// line sent to a shell can be checked as the command it runs. Every key that runs a line in
// bash's default bindings (and zsh's) counts as entering it; keys that change the line in ways
// not followed here (arrows, history, completion, Esc combinations) leave its text unknown.

const ESC = '\x1b'
const CTRL_X = '\x18'
const INTERRUPT = '\x03'

/** Where a line stands between inputs. */
export interface LineState {
  /** The line typed so far; undefined when keys not followed here changed it. */
  readonly line: string | undefined
  /** The text last known, followed by the plain text typed since (a guess once unknown). */
  readonly guess: string
  /** Esc or Ctrl-X pressed last, waiting for the key it combines with, and the line before it. */
  readonly prefix?: { readonly key: string; readonly line: string | undefined }
}

export const EMPTY_LINE: LineState = { line: '', guess: '' }

/** A line some key sent to the shell. */
export type EnteredLine =
  /** Its text, as typed. */
  | { readonly kind: 'known'; readonly text: string }
  /**
   * Changed by keys in an earlier input (the screen shows it): `typed` is the plain text this
   * input typed into it at the cursor before running it.
   */
  | { readonly kind: 'earlier'; readonly typed: string; readonly guesses: readonly string[] }
  /** Changed by keys in this same input, or run through an editor: nothing tells its text. */
  | { readonly kind: 'unknown'; readonly guesses: readonly string[] }

export interface TypedLines {
  state: LineState
  /** Lines run by the input, in order. */
  entered: EnteredLine[]
}

/** Esc then one of these runs the line: insert-comment, accept-and-hold (zsh), M-C-j and M-C-m. */
const ESC_RUNS = new Set(['#', 'a', 'A', '\r', '\n'])
/** After Esc: Ctrl-E (shell-expand-line) runs the line's command substitutions and keeps the line. */
const EXPAND = '\x05'
/** After Ctrl-X: Ctrl-E (edit-and-execute-command) runs what an editor leaves. */
const EDIT = '\x05'
/** Escape sequences of the cursor and function keys (CSI `ESC [ … final`, SS3 `ESC O x`). */
const CSI = 'csi'
const SS3 = 'ss3'

/** Whether expanding `line` (Tab in zsh, shell-expand-line) runs commands. */
function substitutes(line: string): boolean {
  return /\$\(|`|<\(|>\(/.test(line)
}

/**
 * The line after `data` is typed at `state`, and the lines the keys in it run: Enter (CR),
 * Ctrl-J (LF), Ctrl-O (operate-and-get-next, which then loads a history line), Esc # and the
 * other Esc combinations in ESC_RUNS, Esc Ctrl-E and Ctrl-X Ctrl-E, and Tab on a line with a
 * command substitution (zsh expands it). Ctrl-C starts a new line; Ctrl-U and Backspace edit
 * a known line (its cursor is at the end: no key that moves it is followed).
 */
export function typeInto(state: LineState, data: string): TypedLines {
  let { line, guess, prefix } = state
  const entered: EnteredLine[] = []
  // Unknown since this input changed it (so the screen does not show it yet).
  let changedHere = false
  // Plain text this input typed into a line unknown since before it.
  let typed = ''
  // Plain text typed since the last key not followed (the end of a guessed line).
  let tail = ''
  const lose = () => {
    if (line !== undefined) guess = line
    line = undefined
    changedHere = true
    tail = ''
  }
  const guesses = () => [...new Set([guess, tail])]
  const enter = (text: string | undefined) => {
    if (text !== undefined) entered.push({ kind: 'known', text })
    else if (changedHere) entered.push({ kind: 'unknown', guesses: guesses() })
    else entered.push({ kind: 'earlier', typed, guesses: guesses() })
  }
  const fresh = () => {
    line = ''
    guess = ''
    changedHere = false
    typed = ''
    tail = ''
  }
  for (const char of data) {
    // The terminal turns Ctrl-C into SIGINT, whatever came before: the shell drops the line.
    if (char === INTERRUPT) {
      prefix = undefined
      fresh()
      continue
    }
    if (prefix !== undefined) {
      const { key, line: before } = prefix
      prefix = undefined
      if (char === ESC || char === CTRL_X) prefix = { key: char, line: undefined }
      else if (key === CSI) {
        // Parameters until the final byte.
        if (char < '@' || char > '~') prefix = { key, line: before }
      } else if (key === ESC && char === '[') prefix = { key: CSI, line: before }
      else if (key === ESC && char === 'O') prefix = { key: SS3, line: before }
      else if (key === ESC && char === '#') {
        enter(before === undefined ? undefined : `#${before}`)
        fresh()
      } else if (key === ESC && char === EXPAND) {
        enter(before)
        lose()
      } else if (key === ESC && ESC_RUNS.has(char)) {
        enter(undefined)
        lose()
      } else if (key === CTRL_X && char === EDIT) {
        lose()
        enter(undefined)
      }
      // Any other key was consumed with its prefix; the line stays unknown.
      continue
    }
    if ((char === '\r' || char === '\n') && line !== undefined && continuesLine(line) !== undefined) {
      // The shell asks for more (PS2) and runs the lines as one: follow them as one.
      line = continuesLine(line) === 'backslash' ? line.slice(0, -1) : `${line}\n`
    } else if (char === '\r' || char === '\n') {
      enter(line)
      fresh()
    } else if (char === '\x0f') {
      enter(line)
      // operate-and-get-next puts the next history line in the editor.
      fresh()
      lose()
    } else if (char === ESC || char === CTRL_X) {
      prefix = { key: char, line }
      lose()
    } else if (line !== undefined && char === '\x15') line = ''
    else if (line !== undefined && (char === '\x7f' || char === '\b')) line = line.slice(0, -1)
    else if (char === '\t') {
      if (line !== undefined && substitutes(line)) enter(line)
      lose()
    } else if (char < ' ' || char === '\x7f') lose()
    else if (line !== undefined) line += char
    else {
      if (!changedHere) typed += char
      guess += char
      tail += char
    }
  }
  return { state: { line, guess, ...(prefix ? { prefix } : {}) }, entered }
}

/**
 * Why a shell would not run `line` on Enter but ask for more: it ends in an unescaped
 * backslash (a continuation, which the shell removes), or a quote is still open (the
 * newline becomes part of the string). Here-documents are not followed.
 */
export function continuesLine(line: string): 'backslash' | 'quote' | undefined {
  let quote: "'" | '"' | undefined
  for (let i = 0; i < line.length; i++) {
    const char = line[i]
    if (quote === "'") {
      if (char === "'") quote = undefined
    } else if (char === '\\') {
      if (i === line.length - 1) return quote === undefined ? 'backslash' : 'quote'
      i += 1
    } else if (quote === '"') {
      if (char === '"') quote = undefined
    } else if (char === "'" || char === '"') quote = char
  }
  return quote !== undefined ? 'quote' : undefined
}

/**
 * Whether an interactive bash or zsh would expand history in `line` (`!!`, `!$`, `!:1-2`,
 * `!touch`): what runs is then another line than the one typed. `!` followed by a blank,
 * `=` or `(`, at the end, escaped, or in single quotes expands nothing.
 */
export function expandsHistory(line: string): boolean {
  let single = false
  for (let i = 0; i < line.length; i++) {
    const char = line[i]
    if (single) {
      if (char === "'") single = false
    } else if (char === '\\') i += 1
    else if (char === "'") single = true
    else if (char === '!' && i + 1 < line.length && !/[\s=(]/.test(line[i + 1]!)) return true
  }
  return false
}

/** `state` after input went to a program that is not a shell: text it may have left unread makes the line unknown. */
export function typedElsewhere(state: LineState, data: string): LineState {
  const { state: after } = typeInto(state, data)
  return after.line === '' && after.prefix === undefined ? after : { line: undefined, guess: after.guess }
}
