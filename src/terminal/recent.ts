// What a terminal printed since its last read, kept for `wait_for` patterns: bounded to
// its newest part, and matched incrementally (each check looks at the new output and a
// little of what came before it, never re-joining everything kept). Patterns see plain
// text: the part a check looks at is stripped of control sequences then, not on arrival.

import { testPattern } from './pattern.js'
import { stripControls } from './strip.js'

/** Output kept since the last read; older text is let go. */
const KEEP_CHARS = 64_000
/** A new chunk is matched together with this much of what came before it. */
const MATCH_OVERLAP_CHARS = 2_000
/** Many small chunks (typed echoes) are merged once there are this many. */
const MAX_CHUNKS = 256

export class RecentText {
  private chunks: string[] = []
  private kept = 0
  /** Characters appended ever; positions below are absolute. */
  private end = 0
  /** Text before this position was already matched (the overlap is matched again). */
  private checkedUpTo = 0

  append(text: string): void {
    if (text === '') return
    this.chunks.push(text)
    this.kept += text.length
    this.end += text.length
    while (this.chunks.length > 1 && this.kept - this.chunks[0]!.length >= KEEP_CHARS) {
      this.kept -= this.chunks.shift()!.length
    }
    if (this.chunks.length > MAX_CHUNKS) {
      const merged = this.chunks.join('').slice(-KEEP_CHARS)
      this.chunks = [merged]
      this.kept = merged.length
    }
  }

  /** Forgets everything: the next match starts with what comes after. */
  clear(): void {
    this.chunks = []
    this.kept = 0
    this.checkedUpTo = this.end
  }

  /**
   * Whether `pattern` occurs in the text not matched yet (with some overlap before it).
   * Throws TERMINAL_PATTERN_TOO_SLOW past the match budget (pattern.ts).
   */
  test(pattern: RegExp): boolean {
    const from = Math.max(this.end - this.kept, this.checkedUpTo - MATCH_OVERLAP_CHARS)
    this.checkedUpTo = this.end
    return testPattern(pattern, stripControls(this.since(from)))
  }

  /** The kept text from absolute position `from` to the end, joining only the chunks needed. */
  private since(from: number): string {
    let start = this.end
    let index = this.chunks.length
    while (index > 0 && start > from) start -= this.chunks[--index]!.length
    const text = index === this.chunks.length - 1 ? this.chunks[index]! : this.chunks.slice(index).join('')
    return start < from ? text.slice(from - start) : text
  }
}
