// The emulated screen of one terminal (@xterm/headless, loaded on first use): parses what
// the program writes, answers the screen as text with the cursor, and the lines that
// scrolled off the top since the last read (a marker at the screen's top row keeps the place;
// a full-screen program's alternate buffer has no scrollback and no marker).

import type { IMarker, Terminal } from '@xterm/headless'

type TerminalClass = typeof Terminal
let terminalClass: Promise<TerminalClass> | undefined

/** Imports @xterm/headless once, when the first terminal starts (start-up stays small). */
export function loadTerminalClass(): Promise<TerminalClass> {
  // A CommonJS package: its exports arrive as the default export.
  terminalClass ??= import('@xterm/headless').then(
    (module) => (module as unknown as { default: { Terminal: TerminalClass } }).default.Terminal,
  )
  return terminalClass
}

export interface ScreenSnapshot {
  /** The screen's rows as text (right-trimmed); trailing blank rows removed. */
  lines: string[]
  /** Zero-based; the column stays below `cols` (a full row leaves xterm's cursor one past it). */
  cursor: { row: number; col: number }
  cols: number
  rows: number
  /** Lines that left the screen's top since the previous snapshot, oldest first (the newest ones, up to the limit asked). */
  scrolled: string[]
  /** How many more lines left the top before those (beyond the limit; not read off the screen). */
  omitted: number
  /** True when more lines scrolled than the scrollback holds: some were dropped (see the transcript). */
  dropped: boolean
}

export class Screen {
  private readonly term: Terminal
  private mark: IMarker | undefined
  private marked = false
  private droppedSinceRead = false

  constructor(
    TerminalClass: TerminalClass,
    cols: number,
    rows: number,
    private readonly scrollbackLines: number,
  ) {
    this.term = new TerminalClass({ cols, rows, scrollback: scrollbackLines, allowProposedApi: true })
  }

  /** Rows the screen and its scrollback hold together. */
  get capacity(): number {
    return this.scrollbackLines + this.term.rows
  }

  get cols(): number {
    return this.term.cols
  }

  get rows(): number {
    return this.term.rows
  }

  /** Output was left out of the screen (too much too fast): the next read says lines were dropped. */
  markDropped(): void {
    this.droppedSinceRead = true
  }

  /**
   * The user typed `data` (it goes to the program separately): like xterm front ends, this
   * lets the emulator parse the program's next output, the echo, at once instead of on its
   * next timer tick. Nothing listens to the emulator's own input events, so nothing is sent.
   */
  typed(data: string): void {
    this.term.input(data, true)
  }

  /** Parses `data`; `done` (if given) runs once it is on the screen. */
  write(data: string, done?: () => void): void {
    this.term.write(data, done)
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows)
  }

  /** The last `count` non-blank rows of the screen, for live views (no read position moves). */
  tail(count: number): string[] {
    const lines = this.screenLines()
    return lines.slice(-count)
  }

  /**
   * The logical line under the cursor (soft-wrapped rows joined) and the cursor's offset in
   * it; what a shell shows of the line being edited, after its prompt.
   */
  cursorLine(): { text: string; offset: number } {
    const buffer = this.term.buffer.active
    const cursor = buffer.baseY + buffer.cursorY
    let first = cursor
    while (first > 0 && buffer.getLine(first)?.isWrapped) first--
    let last = cursor
    while (buffer.getLine(last + 1)?.isWrapped) last++
    let text = ''
    let offset = 0
    for (let index = first; index <= last; index++) {
      let row = buffer.getLine(index)?.translateToString(index === last) ?? ''
      if (index === cursor) {
        row = row.padEnd(buffer.cursorX)
        offset = text.length + buffer.cursorX
      }
      text += row
    }
    return { text, offset }
  }

  /**
   * The screen now, and the newest `maxScrolled` lines that scrolled off since the last
   * `read`; moves the read position.
   */
  read(maxScrolled = Number.POSITIVE_INFINITY): ScreenSnapshot {
    const buffer = this.term.buffer.active
    const base = buffer.baseY
    let from = 0
    let dropped = this.droppedSinceRead
    this.droppedSinceRead = false
    const cursor = { row: buffer.cursorY, col: Math.min(buffer.cursorX, this.term.cols - 1) }
    const snapshot = { cursor, cols: this.term.cols, rows: this.term.rows }
    // Nothing scrolls off a full-screen program's buffer; the normal one keeps its marker for later.
    if (buffer.type === 'alternate')
      return { ...snapshot, lines: this.screenLines(), scrolled: [], omitted: 0, dropped }
    if (this.marked) {
      if (this.mark === undefined || this.mark.isDisposed) dropped = true
      else from = Math.min(this.mark.line, base)
    }
    const { lines: scrolled, omitted } = lastLines(buffer, from, base, maxScrolled)
    // The marker sits at the screen's top row: the next read starts where this screen began.
    // Nothing scrolled and the marker still there: it already sits at the top row.
    if (this.mark === undefined || this.mark.isDisposed || this.mark.line !== base) {
      this.mark?.dispose()
      this.mark = this.term.registerMarker(-cursor.row)
    }
    this.marked = true
    return { ...snapshot, lines: this.screenLines(), scrolled, omitted, dropped }
  }

  dispose(): void {
    this.mark?.dispose()
    this.term.dispose()
  }

  private screenLines(): string[] {
    const buffer = this.term.buffer.active
    // Each property read through xterm's API builds a wrapper: read them once.
    const base = buffer.baseY
    const rows = this.term.rows
    const lines: string[] = []
    for (let row = 0; row < rows; row++)
      lines.push(trimEnd(buffer.getLine(base + row)?.translateToString(true) ?? ''))
    while (lines.length > 0 && lines.at(-1) === '') lines.pop()
    return lines
  }
}

type Buffer = Terminal['buffer']['active']

/** A row without trailing spaces: xterm trims only cells never written, not spaces a program printed. */
function trimEnd(text: string): string {
  return text.replace(/ +$/, '')
}

/**
 * The last `max` lines of buffer rows [from, to) as text, a soft-wrapped row joined with the
 * row before it, and how many lines come before those (counted, not read: a flood's
 * scrollback is mostly left out of a reading).
 */
function lastLines(
  buffer: Buffer,
  from: number,
  to: number,
  max: number,
): { lines: string[]; omitted: number } {
  const lines: string[] = []
  let omitted = 0
  // Rows that continue a wrapped line, waiting for the row that starts it.
  let continuation = ''
  for (let index = to - 1; index >= from; index--) {
    const line = buffer.getLine(index)
    if (!line) continue
    const starts = !line.isWrapped || index === from
    if (lines.length >= max) {
      if (starts) omitted++
      continue
    }
    const text = line.translateToString(true)
    if (!starts) {
      continuation = text + continuation
      continue
    }
    lines.push(trimEnd(text + continuation))
    continuation = ''
  }
  lines.reverse()
  return { lines, omitted }
}
