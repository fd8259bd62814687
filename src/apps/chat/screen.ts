// The terminal screen of the chat: finished output scrolls up as ordinary lines (the
// terminal's scrollback keeps it), and a small live region at the bottom — spinner,
// streaming preview, queued prompts, the input box and the status line — is erased and
// redrawn in place. A redraw touches only the live region, so its cost does not grow
// with the conversation.

import { displayWidth } from './width.js'

/** Shortest time between two redraws of the live region, in ms. */
const FRAME_MS = 16

/** What the live region shows, top to bottom, and where the cursor goes. */
export interface LiveFrame {
  lines: string[]
  /** The cursor's row within `lines` and its column (in cells). */
  cursor: { row: number; column: number }
}

export interface Terminal {
  write(text: string): unknown
  readonly columns?: number
  readonly rows?: number
}

/** Rows a line occupies on a terminal `columns` wide. */
export function rowsOf(line: string, columns: number): number {
  const width = displayWidth(line)
  return Math.max(1, Math.ceil(width / columns))
}

export class Screen {
  /** Rows of the live region currently drawn, and the cursor's row inside it. */
  private drawnRows = 0
  private cursorRow = 0
  /** What was drawn, at which width: a narrower terminal rewraps it (see erase). */
  private drawn: { lines: string[]; cursor: LiveFrame['cursor']; columns: number } | undefined
  private pending: string[] = []
  private scheduled = false
  private lastRefresh = 0

  constructor(
    private readonly out: Terminal,
    private readonly frame: () => LiveFrame,
  ) {}

  private closed = false

  get columns(): number {
    return Math.max(20, this.out.columns ?? 80)
  }

  private get rows(): number {
    return Math.max(5, this.out.rows ?? 24)
  }

  /** Adds finished lines above the live region (drawn on the next refresh). */
  commit(lines: string[]): void {
    if (lines.length === 0) return
    this.pending.push(...lines)
    this.schedule()
  }

  /**
   * Redraws soon: many updates become one write, and redraws come at most once a frame
   * (a terminal shows no more than that), so a fast stream costs few redraws.
   */
  schedule(): void {
    if (this.scheduled || this.closed) return
    this.scheduled = true
    const wait = this.lastRefresh + FRAME_MS - performance.now()
    const run = () => {
      this.scheduled = false
      this.refresh()
    }
    if (wait <= 0) setImmediate(run)
    else setTimeout(run, wait)
  }

  /** Erases the live region, writes committed lines, draws the live region again. */
  refresh(): void {
    // After close the terminal belongs to the shell again: a redraw scheduled before would
    // put the input box and status line back under the last line (and the shell's prompt).
    if (this.closed) return
    this.lastRefresh = performance.now()
    const columns = this.columns
    let text = this.erase()
    for (const line of this.pending) text += `${line}\r\n`
    this.pending = []
    const frame = this.frame()
    // The live region never exceeds the screen: keep its bottom (the input box).
    const limit = this.rows - 1
    let lines = frame.lines
    let cursor = frame.cursor
    let total = lines.reduce((sum, line) => sum + rowsOf(line, columns), 0)
    while (total > limit && lines.length > 1 && cursor.row > 0) {
      total -= rowsOf(lines[0]!, columns)
      lines = lines.slice(1)
      cursor = { row: cursor.row - 1, column: cursor.column }
    }
    text += lines.join('\r\n')
    // The cursor is at the end of the last line; move it to the input cursor.
    let rowsBefore = 0
    for (let index = 0; index < cursor.row; index++) rowsBefore += rowsOf(lines[index]!, columns)
    const cursorRow = rowsBefore + Math.floor(cursor.column / columns)
    const lastRow = total - 1
    const up = lastRow - cursorRow
    if (up > 0) text += `\u001b[${up}A`
    text += `\r`
    const column = cursor.column % columns
    if (column > 0) text += `\u001b[${column}C`
    this.drawnRows = total
    this.cursorRow = cursorRow
    this.drawn = { lines, cursor, columns }
    this.out.write(text)
  }

  /** Erases the live region and leaves the cursor at its first row (for a clean exit). */
  close(): void {
    if (this.closed) return
    this.closed = true
    const text = this.erase()
    let rest = ''
    for (const line of this.pending) rest += `${line}\r\n`
    this.pending = []
    this.out.write(text + rest)
  }

  private erase(): string {
    if (this.drawnRows === 0) return ''
    const up = this.cursorRowNow()
    this.drawnRows = 0
    this.cursorRow = 0
    this.drawn = undefined
    return `${up > 0 ? `\u001b[${up}A` : ''}\r\u001b[J`
  }

  /**
   * The cursor's row in the live region as the terminal shows it now. After a resize a
   * terminal rewraps the drawn lines to the new width (tmux, VTE, iTerm2, kitty, Windows
   * Terminal do), so the rows above the cursor are counted again at that width; counted at
   * the old one, the erase stopped short and left a copy of the input above the new one.
   */
  private cursorRowNow(): number {
    const drawn = this.drawn
    const columns = this.columns
    if (drawn === undefined || drawn.columns === columns) return this.cursorRow
    let rows = 0
    for (let index = 0; index < drawn.cursor.row; index++) rows += rowsOf(drawn.lines[index]!, columns)
    return rows + Math.floor(drawn.cursor.column / columns)
  }
}
