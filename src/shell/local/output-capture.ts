// Captures one output stream: keeps its tail up to a character cap in memory and, once
// the cap is passed, spills the stream to a private file: all of it up to MAX_SPILL_BYTES,
// then the file ends with a note and the rest is dropped (the tail still follows the end).

import { createWriteStream, type WriteStream } from 'node:fs'
import type { CapturedOutput } from '../types.js'

/** Characters kept per stream when the executor config names no cap. */
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000
/** Bytes of one stream a spill file holds at most (64 MiB): `yes` must not fill the disk. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024

export class OutputCapture {
  private tail = ''
  private totalChars = 0
  private spill: WriteStream | undefined
  private spillPath: string | undefined
  private spillFailed = false
  private spilledBytes = 0
  private spilledChars = 0
  /** The spill file reached `maxSpillBytes`: what follows is dropped. */
  private spillFull = false

  /** `spillPath` is called once, when the stream first passes `maxChars`. */
  constructor(
    private readonly maxChars: number,
    private readonly nextSpillPath: () => string,
    private readonly maxSpillBytes = MAX_SPILL_BYTES,
  ) {}

  /** Adds a chunk. Returns false when the spill file is backed up: pause the source until `onDrain`. */
  push(chunk: string): boolean {
    if (chunk.length === 0) return true
    this.totalChars += chunk.length
    if (this.totalChars > this.maxChars && !this.spill && !this.spillFailed) this.openSpill()
    const flowing = this.spill && !this.spillFailed ? this.writeSpill(chunk) : true
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
    if (truncated && this.spillPath !== undefined && !this.spillFailed) {
      output.fullOutputPath = this.spillPath
      if (this.spillFull) output.droppedChars = this.totalChars - this.spilledChars
    }
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
      const dropped = this.totalChars - this.spilledChars
      await new Promise<void>((resolve) => {
        spill.once('close', resolve)
        spill.end(
          this.spillFull ? `[dsh: ${dropped.toLocaleString('en-US')} more characters were dropped]\n` : '',
        )
      })
    }
    return this.snapshot()
  }

  /** Writes `chunk` to the spill file up to `maxSpillBytes`; false while the file is backed up. */
  private writeSpill(chunk: string): boolean {
    const spill = this.spill!
    if (this.spillFull) return true
    const bytes = Buffer.byteLength(chunk)
    if (this.spilledBytes + bytes <= this.maxSpillBytes) {
      this.spilledBytes += bytes
      this.spilledChars += chunk.length
      return spill.write(chunk)
    }
    // The head that fits, cut before a character's continuation bytes.
    const encoded = Buffer.from(chunk)
    let end = this.maxSpillBytes - this.spilledBytes
    while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--
    const head = encoded.subarray(0, end).toString('utf8')
    this.spilledBytes += end
    this.spilledChars += head.length
    this.spillFull = true
    const limit = `${Math.round(this.maxSpillBytes / (1024 * 1024))} MiB`
    spill.write(head)
    return spill.write(
      `\n[dsh: this file holds the first ${limit} of the output (the cap per stream); the rest of the stream was dropped, its last part is in the tool result]\n`,
    )
  }

  private openSpill(): void {
    try {
      this.spillPath = this.nextSpillPath()
      const spill = createWriteStream(this.spillPath, { flags: 'wx', mode: 0o600, encoding: 'utf8' })
      spill.on('error', () => {
        // The tail is still reported; the result just carries no full-output path.
        this.spillFailed = true
      })
      this.spill = spill
      // Until now the tail holds the whole stream: trimming starts only past twice the cap.
      this.writeSpill(this.tail)
    } catch {
      // No private folder could be made: report the tail without a full-output path.
      this.spillFailed = true
    }
  }
}
