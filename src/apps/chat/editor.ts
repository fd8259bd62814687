// The input editor's text and cursor: a pure state object with the editing operations
// a shell user expects (word moves, kill line, multi-line), kept apart from key decoding
// and drawing so it is tested directly.

/** A paste at least this many lines long is shown as a placeholder in the input. */
export const PASTE_PLACEHOLDER_LINES = 4

export class EditorBuffer {
  text = ''
  /** Cursor as an index into `text` (UTF-16 units). */
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
    const start = placeholder !== undefined ? this.cursor - placeholder.length : this.cursor - 1
    this.text = this.text.slice(0, start) + this.text.slice(this.cursor)
    this.cursor = start
  }

  deleteForward(): void {
    if (this.cursor >= this.text.length) return
    this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + 1)
  }

  left(): void {
    this.cursor = Math.max(0, this.cursor - 1)
  }

  right(): void {
    this.cursor = Math.min(this.text.length, this.cursor + 1)
  }

  wordLeft(): void {
    this.cursor = wordStartBefore(this.text, this.cursor)
  }

  wordRight(): void {
    let index = this.cursor
    while (index < this.text.length && !isWordChar(this.text[index]!)) index++
    while (index < this.text.length && isWordChar(this.text[index]!)) index++
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

  /** Moves the cursor one line up or down; false when it is already on the first/last line. */
  verticalMove(direction: -1 | 1): boolean {
    const lineStart = this.text.lastIndexOf('\n', this.cursor - 1) + 1
    const column = this.cursor - lineStart
    if (direction < 0) {
      if (lineStart === 0) return false
      const previousStart = this.text.lastIndexOf('\n', lineStart - 2) + 1
      this.cursor = Math.min(previousStart + column, lineStart - 1)
      return true
    }
    const lineEnd = this.text.indexOf('\n', this.cursor)
    if (lineEnd < 0) return false
    const nextEnd = this.text.indexOf('\n', lineEnd + 1)
    this.cursor = Math.min(lineEnd + 1 + column, nextEnd < 0 ? this.text.length : nextEnd)
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

function isWordChar(char: string): boolean {
  return /[\p{L}\p{N}_]/u.test(char)
}

function wordStartBefore(text: string, cursor: number): number {
  let index = cursor
  while (index > 0 && !isWordChar(text[index - 1]!)) index--
  while (index > 0 && isWordChar(text[index - 1]!)) index--
  return index
}
