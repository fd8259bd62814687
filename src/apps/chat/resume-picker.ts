// The resume picker (`/resume` with no id, `dsh -r` with no id): the folder's sessions,
// newest first, with title, folder, age, turns and cost. Typing filters — by title and id at once,
// and by the history search service (prompts, answers, tool output) when it answers —
// Up/Down move, Enter resumes, Esc cancels; below the list, the selected session's last
// exchange.

import { formatAge } from '../shared/age.js'
import type { Colors } from '../shared/render.js'
import { safe } from './chat-host.js'
import { withoutLastGrapheme } from './graphemes.js'
import type { KeyPress } from './input.js'
import type { PickerRow, PickerSource } from './picker-types.js'

export type { PickerRow, PickerSource } from './picker-types.js'

/** Rows shown at once; the list scrolls to keep the selection in view. */
export const PICKER_ROWS = 8

export class ResumePicker {
  query = ''
  private selected = 0
  /** The search service's answer for `searchedFor`. */
  private found: ReadonlySet<string> = new Set()
  private searchedFor = ''
  private readonly previews = new Map<string, readonly string[]>()

  constructor(
    private readonly source: PickerSource,
    private readonly colors: Colors,
    private readonly changed: () => void,
    private readonly done: (id: string | undefined) => void,
  ) {
    this.loadPreview()
  }

  /** The rows the query keeps, newest first. */
  visible(): PickerRow[] {
    const query = this.query.trim().toLowerCase()
    if (query === '') return [...this.source.rows]
    const found = this.searchedFor === this.query ? this.found : new Set<string>()
    return this.source.rows.filter(
      (row) => row.title.toLowerCase().includes(query) || row.id.startsWith(query) || found.has(row.id),
    )
  }

  get selection(): PickerRow | undefined {
    return this.visible()[this.selected]
  }

  /** Handles a key; always true (the picker holds the keyboard while open). */
  key(key: KeyPress): boolean {
    const count = this.visible().length
    if (key.name === 'escape' || (key.ctrl && (key.name === 'c' || key.name === 'd'))) this.done(undefined)
    else if (key.name === 'return' || key.name === 'enter') {
      const row = this.selection
      if (row) this.done(row.id)
    } else if (key.name === 'up' || (key.ctrl && key.name === 'p')) this.move(-1, count)
    else if (key.name === 'down' || (key.ctrl && key.name === 'n')) this.move(1, count)
    else if (key.name === 'backspace') this.setQuery(withoutLastGrapheme(this.query))
    else if (key.paste !== undefined) this.setQuery(this.query + key.paste.replace(/\s+/g, ' '))
    else if (key.sequence !== undefined && !key.ctrl && !key.meta && isPrintable(key.sequence))
      this.setQuery(this.query + key.sequence)
    this.changed()
    return true
  }

  /** The picker's lines, and where the cursor goes (the end of the search line). */
  frame(): { lines: string[]; row: number; column: number } {
    const { colors } = this
    const rows = this.visible()
    const lines = [
      `${colors.yellow('?')} ${colors.bold('resume a session')} ${colors.dim('type to search · ↑↓ move · Enter resumes · Esc cancels')}`,
    ]
    const typed = safe(this.query)
    lines.push(`  search: ${typed}`)
    const cursor = { row: 1, column: 10 + typed.length }
    if (rows.length === 0) {
      lines.push(
        colors.dim(this.query === '' ? '  no stored sessions in this folder' : '  no session matches'),
      )
      return { lines, ...cursor }
    }
    const first = Math.min(
      Math.max(0, this.selected - PICKER_ROWS + 1),
      Math.max(0, rows.length - PICKER_ROWS),
    )
    const now = Date.now()
    rows.slice(first, first + PICKER_ROWS).forEach((row, index) => {
      const chosen = first + index === this.selected
      const turns = `${row.turns} turn${row.turns === 1 ? '' : 's'}`
      const text = `${formatAge(row.lastActivity, now).padEnd(4)} ${turns.padEnd(9)} ${row.cost.padEnd(9)} ${safe(row.title)}  ${colors.dim(safe(shortFolder(row.folder)))}`
      lines.push(chosen ? `${colors.cyan('›')} ${colors.bold(text)}` : `  ${text}`)
    })
    if (rows.length > PICKER_ROWS) lines.push(colors.dim(`  (${rows.length} sessions; ↑↓ scrolls)`))
    const preview = this.selection ? this.previews.get(this.selection.id) : undefined
    lines.push(colors.dim('  ── last exchange ──'))
    for (const line of preview ?? ['…']) lines.push(colors.dim(`  ${safe(line)}`))
    return { lines, ...cursor }
  }

  private move(by: number, count: number): void {
    if (count === 0) return
    this.selected = Math.min(count - 1, Math.max(0, this.selected + by))
    this.loadPreview()
  }

  private setQuery(query: string): void {
    this.query = query
    this.selected = 0
    this.loadPreview()
    const asked = query
    if (asked.trim().length < 2) return
    // The search service answers later; only the answer for what is still typed counts.
    void this.source.search(asked.trim()).then(
      (ids) => {
        if (this.query !== asked) return
        this.found = new Set(ids)
        this.searchedFor = asked
        this.loadPreview()
        this.changed()
      },
      () => {
        // A query the search refuses (say, only stop characters) filters by title alone.
      },
    )
  }

  private loadPreview(): void {
    const row = this.selection
    if (!row || this.previews.has(row.id)) return
    this.previews.set(row.id, ['…'])
    void this.source.preview(row.id).then(
      (lines) => {
        this.previews.set(row.id, lines)
        this.changed()
      },
      () => this.previews.set(row.id, ['(the log could not be read)']),
    )
  }
}

/** The folder's last two parts: the list is this folder's, so the tail is enough to tell. */
export function shortFolder(folder: string): string {
  const parts = folder.split(/[\\/]/).filter((part) => part !== '')
  return parts.length <= 2 ? folder : `…/${parts.slice(-2).join('/')}`
}

function isPrintable(text: string): boolean {
  return [...text].every((char) => char.charCodeAt(0) >= 0x20 && char.charCodeAt(0) !== 0x7f)
}
