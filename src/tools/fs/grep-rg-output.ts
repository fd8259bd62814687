// rg's output read as it arrives, one record at a time: a NUL-ended path (files mode), a
// path, NUL and count (count mode) or a JSON message naming its file (content mode). Records
// about a file the query does not keep are dropped before they are kept or counted.

import type { GrepFileResult, GrepLine, GrepQuery } from './grep-types.js'

const NUL = 0
const NEWLINE = 10

interface RgText {
  text?: string
  bytes?: string
}

type RgMessage =
  | { type: 'begin'; data: { path: RgText } }
  | { type: 'match' | 'context'; data: { path: RgText; lines: RgText; line_number?: number } }
  | { type: 'end' | 'summary'; data: unknown }

interface FileState {
  path: string
  count: number
  lines: GrepLine[]
}

export class RgOutputReader {
  /** Bytes of the records kept so far (what a cap on rg's output counts). */
  keptBytes = 0
  private pending: Buffer = Buffer.alloc(0)
  private readonly files = new Map<string, FileState>()
  private readonly decided = new Map<string, boolean>()

  constructor(private readonly query: Pick<GrepQuery, 'mode' | 'keep'>) {}

  /** Takes the next chunk of rg's stdout. Throws when `keep` throws or a message is not JSON. */
  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    let start = 0
    for (;;) {
      const end = this.recordEnd(start)
      if (end === undefined) break
      this.take(this.pending.subarray(start, end))
      start = end + 1
    }
    this.pending = this.pending.subarray(start)
  }

  /** The files found, in rg's order; an unfinished last record (rg was stopped) is dropped. */
  results(): GrepFileResult[] {
    return [...this.files.values()]
  }

  /** The index of the byte that ends the record starting at `start`, if it has arrived. */
  private recordEnd(start: number): number | undefined {
    const buffer = this.pending
    if (this.query.mode === 'files_with_matches') {
      const at = buffer.indexOf(NUL, start)
      return at === -1 ? undefined : at
    }
    if (this.query.mode === 'count') {
      // A path may hold a newline; the count after its NUL cannot.
      const nul = buffer.indexOf(NUL, start)
      const at = nul === -1 ? -1 : buffer.indexOf(NEWLINE, nul)
      return at === -1 ? undefined : at
    }
    const at = buffer.indexOf(NEWLINE, start)
    return at === -1 ? undefined : at
  }

  private take(record: Buffer): void {
    if (this.query.mode === 'files_with_matches') {
      const path = record.toString('utf8')
      if (this.keeps(path)) this.keep(path, record.length)
      return
    }
    if (this.query.mode === 'count') {
      const nul = record.indexOf(NUL)
      const path = record.subarray(0, nul).toString('utf8')
      if (this.keeps(path)) this.keep(path, record.length).count = Number(record.subarray(nul + 1).toString())
      return
    }
    if (record.length === 0) return
    const message = JSON.parse(record.toString('utf8')) as RgMessage
    if (message.type !== 'begin' && message.type !== 'match' && message.type !== 'context') return
    // Every message names its own file: a line is never credited to another file.
    const path = rgText(message.data.path)
    if (!this.keeps(path)) return
    const file = this.keep(path, record.length)
    if (message.type === 'begin') return
    const text = rgText(message.data.lines).replace(/\r?\n$/, '')
    const first = message.data.line_number ?? 0
    // A multiline match spans several lines: each is shown as a match line.
    for (const [offset, part] of text.split('\n').entries()) {
      file.lines.push({ line: first + offset, text: part, match: message.type === 'match' })
    }
    if (message.type === 'match') file.count += 1
  }

  private keeps(path: string): boolean {
    const keep = this.query.keep
    if (!keep) return true
    let decision = this.decided.get(path)
    if (decision === undefined) {
      decision = keep(path)
      this.decided.set(path, decision)
    }
    return decision
  }

  private keep(path: string, bytes: number): FileState {
    this.keptBytes += bytes + 1
    let file = this.files.get(path)
    if (!file) {
      file = { path, count: 0, lines: [] }
      this.files.set(path, file)
    }
    return file
  }
}

function rgText(value: RgText): string {
  return value.text ?? Buffer.from(value.bytes ?? '', 'base64').toString('utf8')
}
