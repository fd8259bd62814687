// The emulated screen of one terminal (@xterm/headless, loaded on first use): parses what
// the program writes, answers the screen as text with the cursor, and the lines that
// scrolled off the top since the last read (a marker at the screen's top row keeps the place).

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
  /** Zero-based. */
  cursor: { row: number; col: number }
  cols: number
  rows: number
  /** Lines that left the screen's top since the previous snapshot, oldest first. */
  scrolled: string[]
  /** True when more lines scrolled than the scrollback holds: some were dropped (see the transcript). */
  dropped: boolean
}

export class Screen {
  private readonly term: Terminal
  private mark: IMarker | undefined
  private marked = false
  private droppedSinceRead = false

  constructor(TerminalClass: TerminalClass, cols: number, rows: number, scrollbackLines: number) {
    this.term = new TerminalClass({ cols, rows, scrollback: scrollbackLines, allowProposedApi: true })
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

  /** Parses `data`; `done` runs once it is on the screen. */
  write(data: string, done: () => void): void {
    this.term.write(data, done)
  }

  /** Resolves once everything written so far is parsed. */
  flush(): Promise<void> {
    return new Promise((resolve) => this.term.write('', resolve))
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows)
  }

  /** The last `count` non-blank rows of the screen, for live views (no read position moves). */
  tail(count: number): string[] {
    const lines = this.screenLines()
    return lines.slice(-count)
  }

  /** The screen now, and what scrolled off since the last `read`; moves the read position. */
  read(): ScreenSnapshot {
    const buffer = this.term.buffer.active
    const base = buffer.baseY
    let from = 0
    let dropped = this.droppedSinceRead
    this.droppedSinceRead = false
    if (this.marked) {
      if (this.mark === undefined || this.mark.isDisposed) dropped = true
      else from = Math.min(this.mark.line, base)
    }
    const scrolled = joinWrapped(buffer, from, base)
    const cursor = { row: buffer.cursorY, col: buffer.cursorX }
    // The marker sits at the screen's top row: the next read starts where this screen began.
    // Nothing scrolled and the marker still there: it already sits at the top row.
    if (this.mark === undefined || this.mark.isDisposed || this.mark.line !== base) {
      this.mark?.dispose()
      this.mark = this.term.registerMarker(-cursor.row)
    }
    this.marked = true
    return {
      lines: this.screenLines(),
      cursor,
      cols: this.term.cols,
      rows: this.term.rows,
      scrolled,
      dropped,
    }
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
    for (let row = 0; row < rows; row++) lines.push(buffer.getLine(base + row)?.translateToString(true) ?? '')
    while (lines.length > 0 && lines.at(-1) === '') lines.pop()
    return lines
  }
}

type Buffer = Terminal['buffer']['active']

/** Buffer lines [from, to) as text, a soft-wrapped line joined with the row before it. */
function joinWrapped(buffer: Buffer, from: number, to: number): string[] {
  const lines: string[] = []
  for (let index = from; index < to; index++) {
    const line = buffer.getLine(index)
    if (!line) continue
    const text = line.translateToString(true)
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text
    else lines.push(text)
  }
  return lines
}
