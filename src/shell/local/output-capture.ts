// Captures one output stream: keeps its tail up to a character cap in memory and, once
// the cap is passed, spills the whole stream to a private file.

import { createWriteStream, type WriteStream } from 'node:fs'
import type { CapturedOutput } from '../types.js'

/** Characters kept per stream when the executor config names no cap. */
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000

export class OutputCapture {
  private tail = ''
  private totalChars = 0
  private spill: WriteStream | undefined
  private spillPath: string | undefined
  private spillFailed = false

  /** `spillPath` is called once, when the stream first passes `maxChars`. */
  constructor(
    private readonly maxChars: number,
    private readonly nextSpillPath: () => string,
  ) {}

  /** Adds a chunk. Returns false when the spill file is backed up: pause the source until `onDrain`. */
  push(chunk: string): boolean {
    if (chunk.length === 0) return true
    this.totalChars += chunk.length
    if (this.totalChars > this.maxChars && !this.spill && !this.spillFailed) this.openSpill()
    const flowing = this.spill && !this.spillFailed ? this.spill.write(chunk) : true
    this.tail += chunk
    // Trim in batches so a chatty stream does not re-copy the tail on every chunk.
    if (this.tail.length > this.maxChars * 2) this.tail = this.tail.slice(-this.maxChars)
    return flowing
  }

  /** Calls `listener` once the spill file has room again (at once when it is gone). */
  onDrain(listener: () => void): void {
    const spill = this.spill
    if (!spill || this.spillFailed || spill.destroyed) listener()
    else {
      const done = () => {
        spill.off('drain', done)
        spill.off('close', done)
        listener()
      }
      spill.on('drain', done)
      spill.on('close', done)
    }
  }

  snapshot(): CapturedOutput {
    const truncated = this.totalChars > this.maxChars
    const output: CapturedOutput = {
      text: truncated ? this.tail.slice(-this.maxChars) : this.tail,
      totalChars: this.totalChars,
      truncated,
    }
    if (truncated && this.spillPath !== undefined && !this.spillFailed) output.fullOutputPath = this.spillPath
    return output
  }

  /**
   * Spills now, before the cap is passed (a reader shows only part of what it kept), and
   * answers the file's path; undefined when no file could be made.
   */
  spillNow(): string | undefined {
    if (!this.spill && !this.spillFailed) this.openSpill()
    return this.spillFailed ? undefined : this.spillPath
  }

  /** Ends the spill file (if any) and resolves once it is written. */
  async close(): Promise<CapturedOutput> {
    const spill = this.spill
    if (spill && !spill.closed) {
      await new Promise<void>((resolve) => {
        spill.once('close', resolve)
        spill.end()
      })
    }
    return this.snapshot()
  }

  private openSpill(): void {
    try {
      this.spillPath = this.nextSpillPath()
      const spill = createWriteStream(this.spillPath, { flags: 'wx', mode: 0o600, encoding: 'utf8' })
      spill.on('error', () => {
        // The tail is still reported; the result just carries no full-output path.
        this.spillFailed = true
      })
      // Until now the tail holds the whole stream: trimming starts only past twice the cap.
      spill.write(this.tail)
      this.spill = spill
    } catch {
      // No private folder could be made: report the tail without a full-output path.
      this.spillFailed = true
    }
  }
}
