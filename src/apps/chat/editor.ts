// The input editor's text and cursor: a pure state object with the editing operations
// a shell user expects (word moves, kill line, multi-line), kept apart from key decoding
// and drawing so it is tested directly. The cursor moves and deletes by grapheme cluster
// (graphemes.ts), never by UTF-16 unit.

import { graphemeEndAfter, graphemeStartBefore, graphemesOf } from './graphemes.js'
import { displayWidth } from './width.js'

/** A paste at least this many lines long is shown as a placeholder in the input. */
export const PASTE_PLACEHOLDER_LINES = 4

export class EditorBuffer {
  text = ''
  /** Cursor as an index into `text` (UTF-16 units), always at a grapheme cluster boundary. */
  cursor = 0
  /** Long pastes: the placeholder shown in `text` → the pasted text sent on submit. */
  private pastes = new Map<string, string>()

  set(text: string): void {
    this.text = text
    this.cursor = text.length
  }

  clear(): void {
    this.set('')
    this.pastes.clear()
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor)
    this.cursor += text.length
  }

  /** Inserts a bracketed paste: as is when short, as `[pasted N lines]` when long. */
  paste(text: string): void {
    const normalized = text.replace(/\r\n?/g, '\n')
    const lines = normalized.split('\n').length
    if (lines < PASTE_PLACEHOLDER_LINES) {
      this.insert(normalized)
      return
    }
    let placeholder = `[pasted ${lines} lines]`
    for (let n = 2; this.pastes.has(placeholder); n++) placeholder = `[pasted ${lines} lines #${n}]`
    this.pastes.set(placeholder, normalized)
    this.insert(placeholder)
  }

  /** Inserts a token (a pasted image's `[image: …]`) that Backspace removes whole. */
  insertToken(token: string): void {
    this.pastes.set(token, token)
    this.insert(token)
  }

  /** The text to send: placeholders replaced by what was pasted. */
  expanded(): string {
    let out = this.text
    for (const [placeholder, pasted] of this.pastes) out = out.split(placeholder).join(pasted)
    return out
  }

  backspace(): void {
    if (this.cursor === 0) return
    const placeholder = this.placeholderEndingAt(this.cursor)
    const start =
      placeholder !== undefined
        ? this.cursor - placeholder.length
        : graphemeStartBefore(this.text, this.cursor)
    this.text = this.text.slice(0, start) + this.text.slice(this.cursor)
    this.cursor = start
  }

  deleteForward(): void {
    if (this.cursor >= this.text.length) return
    this.text = this.text.slice(0, this.cursor) + this.text.slice(graphemeEndAfter(this.text, this.cursor))
  }

  left(): void {
    this.cursor = graphemeStartBefore(this.text, this.cursor)
  }

  right(): void {
    this.cursor = graphemeEndAfter(this.text, this.cursor)
  }

  wordLeft(): void {
    this.cursor = wordStartBefore(this.text, this.cursor)
  }

  wordRight(): void {
    let index = this.cursor
    let inWord = false
    for (const cluster of graphemesOf(this.text.slice(this.cursor))) {
      const word = isWordCluster(cluster)
      if (inWord && !word) break
      inWord ||= word
      index += cluster.length
    }
    this.cursor = index
  }

  /** Ctrl-W / Alt-Backspace: deletes the word before the cursor. */
  deleteWordBack(): void {
    const start = wordStartBefore(this.text, this.cursor)
    this.text = this.text.slice(0, start) + this.text.slice(this.cursor)
    this.cursor = start
  }

  /** Home / Ctrl-A: start of the current line. */
  lineStart(): void {
    this.cursor = this.text.lastIndexOf('\n', this.cursor - 1) + 1
  }

  /** End / Ctrl-E: end of the current line. */
  lineEnd(): void {
    const end = this.text.indexOf('\n', this.cursor)
    this.cursor = end < 0 ? this.text.length : end
  }

  /** Ctrl-U: deletes from the start of the line to the cursor. */
  killToLineStart(): void {
    const start = this.text.lastIndexOf('\n', this.cursor - 1) + 1
    this.text = this.text.slice(0, start) + this.text.slice(this.cursor)
    this.cursor = start
  }

  /** Ctrl-K: deletes from the cursor to the end of the line. */
  killToLineEnd(): void {
    const end = this.text.indexOf('\n', this.cursor)
    this.text = this.text.slice(0, this.cursor) + (end < 0 ? '' : this.text.slice(end))
  }

  /**
   * Moves the cursor one line up or down, to the same screen column or the nearest cluster
   * boundary left of it; false when it is already on the first/last line.
   */
  verticalMove(direction: -1 | 1): boolean {
    const lineStart = this.text.lastIndexOf('\n', this.cursor - 1) + 1
    const column = displayWidth(this.text.slice(lineStart, this.cursor))
    if (direction < 0) {
      if (lineStart === 0) return false
      const previousStart = this.text.lastIndexOf('\n', lineStart - 2) + 1
      this.cursor = indexAtColumn(this.text, previousStart, lineStart - 1, column)
      return true
    }
    const lineEnd = this.text.indexOf('\n', this.cursor)
    if (lineEnd < 0) return false
    const nextEnd = this.text.indexOf('\n', lineEnd + 1)
    this.cursor = indexAtColumn(this.text, lineEnd + 1, nextEnd < 0 ? this.text.length : nextEnd, column)
    return true
  }

  /** True when the character before the cursor is a `\` that asks for a newline. */
  endsWithBackslash(): boolean {
    return this.cursor > 0 && this.text[this.cursor - 1] === '\\' && this.cursor === this.text.length
  }

  private placeholderEndingAt(index: number): string | undefined {
    for (const placeholder of this.pastes.keys()) {
      if (this.text.slice(index - placeholder.length, index) === placeholder) return placeholder
    }
    return undefined
  }
}

/** A cluster is part of a word when it starts with a letter, digit or `_` (`é` with its accent, `𝒳`). */
function isWordCluster(cluster: string): boolean {
  return /^[\p{L}\p{N}_]/u.test(cluster)
}

function wordStartBefore(text: string, cursor: number): number {
  // One pass over the text before the cursor, then back over its clusters.
  const clusters = [...graphemesOf(text.slice(0, cursor))]
  let index = cursor
  let i = clusters.length
  while (i > 0 && !isWordCluster(clusters[i - 1]!)) index -= clusters[--i]!.length
  while (i > 0 && isWordCluster(clusters[i - 1]!)) index -= clusters[--i]!.length
  return index
}

/** The index in `text[start, end)` (one line) whose clusters before it fill at most `column` columns. */
function indexAtColumn(text: string, start: number, end: number, column: number): number {
  let index = start
  let width = 0
  for (const cluster of graphemesOf(text.slice(start, end))) {
    width += displayWidth(cluster)
    if (width > column) break
    index += cluster.length
  }
  return index
}
