// A terminal's plain-text transcript: its output without control sequences, kept in
// memory up to a bound, then spilled, whole, to a private file. Text is copied into one of
// two fixed blocks: one is written while the other fills, so a flood costs a few large
// writes and no per-chunk buffers; plain text goes in as it came and loses its carriage
// returns in the block, without a stripped copy. When the disk is behind, what waits for
// it is bounded; the file itself stops at MAX_TRANSCRIPT_CHARS (a program printing forever
// must not fill the disk), saying so there.

import { closeSync, openSync, write } from 'node:fs'
import { isPlain, stripControls } from './strip.js'

const CR = 0x0d

const BLOCK_BYTES = 256 * 1024
/** A block this full is written at once; less waits this long for more (fewer, larger writes). */
const WRITE_BYTES = 192 * 1024
const WRITE_DELAY_MS = 20
/** Past this much text waiting for the disk, the waiting text is let go (and the file says so). */
const MAX_OVERFLOW_CHARS = 16_000_000
/** Characters of output one transcript file holds at most (64 Mi); later output reaches only the screen. */
export const MAX_TRANSCRIPT_CHARS = 64 * 1024 * 1024

export class Transcript {
  /** Everything so far (as the terminal wrote it), until the file is opened. */
  private head: string[] = []
  private headChars = 0
  private fd: number | undefined
  private path: string | undefined
  private failed = false
  /** The block being filled (`used` bytes of it) and the one free to fill next. */
  private fill: Buffer | undefined
  private used = 0
  private spare: Buffer | undefined
  private writing = false
  private timer: NodeJS.Timeout | undefined
  /** Text that found no room (both blocks busy, or bigger than a block), in order. */
  private overflow: string[] = []
  private overflowChars = 0
  private closing: Promise<void> | undefined
  private finish: (() => void) | undefined
  /** Characters of output given to the file so far, and those dropped past its cap. */
  private fileChars = 0
  private droppedChars = 0

  /** `nextPath` is called once, when the transcript first passes `maxChars` (or spills now). */
  constructor(
    private readonly maxChars: number,
    private readonly nextPath: () => string,
    private readonly maxFileChars = MAX_TRANSCRIPT_CHARS,
  ) {}

  /** Adds terminal output (control sequences are left out of the transcript). */
  push(text: string): void {
    if (text === '' || this.failed || this.closing) return
    if (this.fd === undefined) {
      this.head.push(text)
      this.headChars += text.length
      if (this.headChars > this.maxChars) this.open()
      return
    }
    this.enqueue(text)
  }

  /** Spills now (a reader shows only part of the output) and answers the file; undefined when none could be made. */
  spillNow(): string | undefined {
    if (this.fd === undefined && !this.failed && !this.closing) this.open()
    return this.failed ? undefined : this.path
  }

  /** Writes what waits, closes the file, and resolves once it is done. */
  close(): Promise<void> {
    if (this.closing === undefined && this.droppedChars > 0 && this.fd !== undefined && !this.failed)
      this.queue(`[dsh: ${this.droppedChars.toLocaleString('en-US')} more characters were dropped]\n`)
    this.closing ??= new Promise<void>((resolve) => {
      this.head = []
      if (this.fd === undefined || this.failed) return resolve()
      this.finish = resolve
      clearTimeout(this.timer)
      this.timer = undefined
      if (!this.writing) this.flush()
    })
    return this.closing
  }

  private open(): void {
    try {
      this.path = this.nextPath()
      this.fd = openSync(this.path, 'wx', 0o600)
    } catch {
      // No private folder or file: the reading carries no full-output path.
      this.failed = true
      this.head = []
      return
    }
    const head = this.head
    this.head = []
    this.headChars = 0
    for (const text of head) this.enqueue(text)
  }

  /** Queues output for the file up to its cap; past it, only counts it. */
  private enqueue(output: string): void {
    if (this.droppedChars > 0) {
      this.droppedChars += output.length
      return
    }
    const room = this.maxFileChars - this.fileChars
    if (output.length <= room) {
      this.fileChars += output.length
      this.queue(output)
      return
    }
    this.fileChars = this.maxFileChars
    this.droppedChars = output.length - room
    const cap = this.maxFileChars.toLocaleString('en-US')
    this.queue(
      `${output.slice(0, room)}\n[dsh: the transcript stops here, at its cap of ${cap} characters; later output reached only the screen]\n`,
    )
  }

  private queue(text: string): void {
    // Once anything overflowed, later text waits behind it: the file keeps the order.
    if (this.overflowChars > 0 || !this.put(text)) {
      if (this.overflowChars + text.length > MAX_OVERFLOW_CHARS) {
        const note = `\n[dsh: ${this.overflowChars} characters of output are missing here: the disk could not keep up]\n`
        this.overflow = [note]
        this.overflowChars = note.length
      }
      this.overflow.push(text)
      this.overflowChars += text.length
    }
    this.schedule()
  }

  /** Writes soon: at once when a block's worth waits (or the file is closing), else shortly. */
  private schedule(): void {
    if (this.writing || this.timer !== undefined) return
    if (this.used === 0 && this.overflowChars === 0 && !this.finish) return
    if (this.used >= WRITE_BYTES || this.overflowChars > 0 || this.finish) {
      this.flush()
      return
    }
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (!this.writing) this.flush()
    }, WRITE_DELAY_MS)
  }

  /** Copies output into the block being filled, stripped; false when it does not fit there now. */
  private put(output: string): boolean {
    const plain = isPlain(output)
    const text = plain ? output : stripControls(output)
    // Measuring UTF-8 first would copy the text: write, and see whether all of it went.
    if (text.length > BLOCK_BYTES - this.used) return false
    if (this.fill === undefined) {
      this.fill = this.spare ?? Buffer.allocUnsafeSlow(BLOCK_BYTES)
      this.spare = undefined
    }
    const room = BLOCK_BYTES - this.used
    const written = this.fill.write(text, this.used, room, 'utf8')
    // Writing stops early only when the next character (up to 4 bytes) has no room.
    if (text.length * 3 > room && written >= room - 3) return false
    this.used = plain ? dropCarriageReturns(this.fill, this.used, this.used + written) : this.used + written
    return true
  }

  /** Starts the next write (none is running): the filled block, else text too big for one. */
  private flush(): void {
    if (this.fd === undefined) return
    while (this.overflowChars > 0 && this.put(this.overflow[0]!)) {
      this.overflowChars -= this.overflow.shift()!.length
    }
    if (this.used > 0) {
      const block = this.fill!
      const length = this.used
      this.fill = undefined
      this.used = 0
      this.writeOut(block, length, 0, block)
    } else if (this.overflowChars > 0) {
      const text = this.overflow.shift()!
      this.overflowChars -= text.length
      const data = Buffer.from(stripControls(text), 'utf8')
      this.writeOut(data, data.length, 0, undefined)
    } else if (this.finish) this.end()
  }

  /** Writes `data` up to `length` from `offset` on (again after a short write); `block` is free after. */
  private writeOut(data: Buffer, length: number, offset: number, block: Buffer | undefined): void {
    const fd = this.fd!
    this.writing = true
    write(fd, data, offset, length - offset, null, (error, written) => {
      if (error) {
        this.writing = false
        this.failed = true
        this.overflow = []
        this.overflowChars = 0
        this.end()
      } else if (written > 0 && offset + written < length)
        this.writeOut(data, length, offset + written, block)
      else {
        this.writing = false
        if (block) this.spare = block
        this.schedule()
      }
    })
  }

  private end(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd)
      } catch {
        // Already closed: nothing to release.
      }
      this.fd = undefined
    }
    this.fill = undefined
    this.spare = undefined
    this.finish?.()
    this.finish = undefined
  }
}

/** Removes the CR bytes of `block` from `from` to `to` in place; answers the new end. */
function dropCarriageReturns(block: Buffer, from: number, to: number): number {
  const region = block.subarray(from, to)
  let cr = region.indexOf(CR)
  if (cr < 0) return to
  let end = cr
  while (cr >= 0) {
    const next = region.indexOf(CR, cr + 1)
    const stop = next < 0 ? region.length : next
    region.copyWithin(end, cr + 1, stop)
    end += stop - cr - 1
    cr = next
  }
  return from + end
}
