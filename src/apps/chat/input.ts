// The input box: turns key presses into edits of the buffer, history moves, Ctrl-R
// search and Tab completion, and reports what the user asked for (submit, interrupt,
// exit) to the chat. It draws itself as lines for the screen's live region.

import { toTerminalText } from '../../core/terminal-text.js'
import type { Colors } from '../shared/render.js'
import { commonPrefix, complete } from './completion.js'
import { EditorBuffer } from './editor.js'
import { withoutLastGrapheme } from './graphemes.js'
import type { PromptHistory } from './history.js'
import { PastedImages, pastedImagePaths } from './paste.js'
import { displayWidth } from './width.js'

/** A decoded key press (Node's keypress shape) or a whole bracketed paste. */
export interface KeyPress {
  name?: string
  sequence?: string
  ctrl?: boolean
  meta?: boolean
  shift?: boolean
  /** Set for a bracketed paste: everything between paste-start and paste-end. */
  paste?: string
}

export interface InputActions {
  /** `persist` writes the prompt to the history file; called once hooks let it through. */
  submit(text: string, persist: () => void): void
  /** Ctrl-C (or Esc on an empty input): the chat decides whether it interrupts or exits. */
  interrupt(): void
  /** Ctrl-D on an empty input. */
  exit(): void
  toggleReasoning(): void
  /** Shift-Tab: the next permission mode. */
  cycleMode(): void
  /** Something changed that needs a redraw. */
  changed(): void
  /** A one-off notice (completion candidates) shown above the input until the next key. */
  hint(text: string | undefined): void
}

interface SearchState {
  query: string
  /** Index in history of the current match. */
  index: number
  match?: string
  /** The input before the search started (Esc / Ctrl-G restores it). */
  saved: string
}

const PROMPT = '> '
const CONTINUATION = '  '

export class InputBox {
  readonly buffer = new EditorBuffer()
  /** Images pasted as files or from the clipboard, by their `[image: …]` token. */
  readonly images = new PastedImages()
  /** Position while browsing history with Up/Down; `entries.length` = the draft. */
  private historyIndex: number
  private draft = ''
  private search: SearchState | undefined

  constructor(
    private readonly history: PromptHistory,
    private readonly commands: () => readonly string[],
    private readonly cwd: () => string,
    private readonly actions: InputActions,
    private readonly colors: Colors,
  ) {
    this.historyIndex = history.entries.length
  }

  get empty(): boolean {
    return this.buffer.text === ''
  }

  /** Puts text (for example queued prompts given back after Ctrl-C) into the input. */
  restore(text: string): void {
    this.buffer.set(this.buffer.text === '' ? text : `${text}\n${this.buffer.text}`)
    this.actions.changed()
  }

  key(key: KeyPress): void {
    this.actions.hint(undefined)
    if (this.search) this.searchKey(key, this.search)
    else this.editKey(key)
    this.actions.changed()
  }

  private editKey(key: KeyPress): void {
    const buffer = this.buffer
    if (key.paste !== undefined) {
      const paths = pastedImagePaths(key.paste, this.cwd())
      if (paths === undefined) buffer.paste(key.paste)
      else this.attach(() => this.images.fromFiles(paths), key.paste)
      return
    }
    const name = key.name
    if (key.ctrl) {
      switch (name) {
        case 'v':
          this.attach(() => this.images.fromClipboard())
          return
        case 'c':
          this.actions.interrupt()
          return
        case 'd':
          if (buffer.text === '') this.actions.exit()
          else buffer.deleteForward()
          return
        case 'j':
          buffer.insert('\n')
          return
        case 'a':
          buffer.lineStart()
          return
        case 'e':
          buffer.lineEnd()
          return
        case 'b':
          buffer.left()
          return
        case 'f':
          buffer.right()
          return
        case 'h':
          buffer.backspace()
          return
        case 'w':
          buffer.deleteWordBack()
          return
        case 'u':
          buffer.killToLineStart()
          return
        case 'k':
          buffer.killToLineEnd()
          return
        case 'l':
          return
        case 'o':
          this.actions.toggleReasoning()
          return
        case 'r':
          this.search = { query: '', index: this.history.entries.length, saved: buffer.text }
          return
        case 'p':
          this.historyMove(-1)
          return
        case 'n':
          this.historyMove(1)
          return
        case 'left':
          buffer.wordLeft()
          return
        case 'right':
          buffer.wordRight()
          return
        default:
          return
      }
    }
    if (key.meta) {
      if (name === 'b' || name === 'left') buffer.wordLeft()
      else if (name === 'f' || name === 'right') buffer.wordRight()
      else if (name === 'backspace') buffer.deleteWordBack()
      else if (name === 'return' || name === 'enter') buffer.insert('\n')
      else if (name === 'escape') this.escape()
      return
    }
    // Shift+Enter where the terminal reports it (kitty/xterm modifyOtherKeys sequences).
    if (
      key.sequence === '\u001b[13;2u' ||
      key.sequence === '\u001b[27;2;13~' ||
      (name === 'return' && key.shift)
    ) {
      buffer.insert('\n')
      return
    }
    // Shift-Tab (`ESC [ Z`, which Node names Tab with shift) cycles the mode, as in Claude Code.
    if (name === 'tab' && key.shift) {
      this.actions.cycleMode()
      return
    }
    switch (name) {
      case 'return':
        if (buffer.endsWithBackslash()) {
          buffer.backspace()
          buffer.insert('\n')
          return
        }
        this.submit()
        return
      case 'enter': // Ctrl-J (a line feed) inserts a newline
        buffer.insert('\n')
        return
      case 'backspace':
        buffer.backspace()
        return
      case 'delete':
        buffer.deleteForward()
        return
      case 'left':
        buffer.left()
        return
      case 'right':
        buffer.right()
        return
      case 'home':
        buffer.lineStart()
        return
      case 'end':
        buffer.lineEnd()
        return
      case 'up':
        if (!buffer.verticalMove(-1)) this.historyMove(-1)
        return
      case 'down':
        if (!buffer.verticalMove(1)) this.historyMove(1)
        return
      case 'tab':
        this.complete()
        return
      case 'escape':
        this.escape()
        return
      default:
        if (key.sequence !== undefined && isPrintable(key.sequence)) buffer.insert(key.sequence)
    }
  }

  /**
   * Inserts the token of an image being prepared once it is ready; a failure is one line
   * above the input (and a pasted path stays as text).
   */
  private attach(prepare: () => Promise<string>, fallback?: string): void {
    this.actions.hint('attaching the image…')
    prepare()
      .then(
        (token) => {
          this.buffer.insertToken(`${token} `)
          this.actions.hint(undefined)
        },
        (error: unknown) => {
          if (fallback !== undefined) this.buffer.paste(fallback)
          this.actions.hint(error instanceof Error ? error.message : String(error))
        },
      )
      .finally(() => this.actions.changed())
  }

  private escape(): void {
    if (this.buffer.text === '') this.actions.interrupt()
  }

  private submit(): void {
    const text = this.buffer.expanded()
    const entry = this.history.add(this.buffer.text.includes('[pasted ') ? text : this.buffer.text)
    this.buffer.clear()
    this.historyIndex = this.history.entries.length
    this.draft = ''
    this.actions.submit(text, entry.persist)
  }

  private historyMove(direction: -1 | 1): void {
    const entries = this.history.entries
    const next = this.historyIndex + direction
    if (next < 0 || next > entries.length) return
    if (this.historyIndex === entries.length) this.draft = this.buffer.text
    this.historyIndex = next
    this.buffer.set(next === entries.length ? this.draft : entries[next]!)
  }

  private complete(): void {
    const { text, cursor } = this.buffer
    const { start, candidates } = complete(text, cursor, this.commands(), this.cwd())
    if (candidates.length === 0) return
    const typed = text.slice(start, cursor)
    const common = candidates.length === 1 ? candidates[0]! : commonPrefix(candidates)
    if (common.length > typed.length) {
      this.buffer.text = text.slice(0, start) + common + text.slice(cursor)
      this.buffer.cursor = start + common.length
      return
    }
    if (candidates.length > 1) this.actions.hint(candidates.map((candidate) => candidate.trim()).join('  '))
  }

  private searchKey(key: KeyPress, search: SearchState): void {
    const entries = this.history.entries
    const find = (before: number) => {
      const found = this.history.search(search.query, before)
      if (found) {
        search.index = found.index
        search.match = found.entry
      } else if (search.query === '') search.match = undefined
    }
    if (key.paste !== undefined) {
      search.query += key.paste
      find(entries.length)
      return
    }
    if (key.ctrl && key.name === 'r') {
      find(search.index)
      return
    }
    if ((key.ctrl && (key.name === 'g' || key.name === 'c')) || key.name === 'escape') {
      this.search = undefined
      this.buffer.set(search.saved)
      return
    }
    if (key.name === 'backspace') {
      search.query = withoutLastGrapheme(search.query)
      find(entries.length)
      return
    }
    if (key.name === 'return') {
      this.search = undefined
      this.buffer.set(search.match ?? search.saved)
      this.submit()
      return
    }
    if (!key.ctrl && !key.meta && key.sequence !== undefined && isPrintable(key.sequence)) {
      search.query += key.sequence
      find(entries.length)
      return
    }
    // Any other key accepts the match for editing.
    this.search = undefined
    this.buffer.set(search.match ?? search.saved)
  }

  /** The input box as lines, with the cursor's row and column. */
  render(): { lines: string[]; cursor: { row: number; column: number } } {
    const { colors } = this
    if (this.search) {
      const { query, match } = this.search
      const label = `(reverse-i-search)\`${query}': `
      const shown = safe((match ?? '').split('\n')[0] ?? '')
      return {
        lines: [colors.dim(label) + shown],
        cursor: { row: 0, column: displayWidth(label) + displayWidth(shown) },
      }
    }
    const { text, cursor } = this.buffer
    const lines = text.split('\n').map(safe)
    const before = text.slice(0, cursor).split('\n')
    const row = before.length - 1
    const column = displayWidth(CONTINUATION) + displayWidth(safe(before[row]!))
    return {
      lines: lines.map(
        (line, index) => (index === 0 ? colors.bold(colors.green(PROMPT)) : CONTINUATION) + line,
      ),
      cursor: { row, column },
    }
  }
}

/** Input is shown, never interpreted: a pasted escape sequence appears escaped. */
function safe(line: string): string {
  return toTerminalText(line, { keepTabs: false })
}

/** Printable text: no control characters (those are keys the editor does not bind). */
function isPrintable(sequence: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  return sequence !== '' && !/[\u0000-\u001f\u007f-\u009f]/.test(sequence)
}
