// A terminal's plain-text transcript: kept in memory up to a bound, then spilled, whole,
// to a private file. Writes are batched (one write in flight; what arrives meanwhile goes
// in the next one), so a flood costs a few large writes rather than one per chunk, and
// what waits for the disk is bounded.

import { closeSync, openSync, write } from 'node:fs'

/** Past this much waiting for the disk, the waiting text is let go (and the file says so). */
const MAX_WAITING_CHARS = 16_000_000

export class Transcript {
  /** Everything so far, until the file is opened. */
  private head: string[] = []
  private headChars = 0
  private fd: number | undefined
  private path: string | undefined
  private failed = false
  private waiting: string[] = []
  private waitingChars = 0
  private writing = false
  private closing: Promise<void> | undefined
  private finish: (() => void) | undefined

  /** `nextPath` is called once, when the transcript first passes `maxChars` (or spills now). */
  constructor(
    private readonly maxChars: number,
    private readonly nextPath: () => string,
  ) {}

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
    this.closing ??= new Promise<void>((resolve) => {
      this.head = []
      if (this.fd === undefined || this.failed) return resolve()
      this.finish = resolve
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
    const head = this.head.join('')
    this.head = []
    this.headChars = 0
    this.enqueue(head)
  }

  private enqueue(text: string): void {
    if (this.waitingChars + text.length > MAX_WAITING_CHARS) {
      const lost = this.waitingChars
      this.waiting = [`\n[dsh: ${lost} characters of output are missing here: the disk could not keep up]\n`]
      this.waitingChars = this.waiting[0]!.length
    }
    this.waiting.push(text)
    this.waitingChars += text.length
    if (!this.writing) this.flush()
  }

  private flush(): void {
    const fd = this.fd
    if (fd === undefined) return
    if (this.waitingChars === 0) {
      if (this.finish) this.end()
      return
    }
    const data = Buffer.from(this.waiting.length === 1 ? this.waiting[0]! : this.waiting.join(''), 'utf8')
    this.waiting = []
    this.waitingChars = 0
    this.writing = true
    this.writeOut(fd, data, 0)
  }

  /** Writes `data` from `offset` on, again after a short write, then flushes what came meanwhile. */
  private writeOut(fd: number, data: Buffer, offset: number): void {
    write(fd, data, offset, data.length - offset, null, (error, written) => {
      if (error) {
        this.writing = false
        this.failed = true
        this.waiting = []
        this.waitingChars = 0
        this.end()
      } else if (written > 0 && offset + written < data.length) this.writeOut(fd, data, offset + written)
      else {
        this.writing = false
        this.flush()
      }
    })
  }

  private end(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd)
      } catch {
        // Already closed: nothing to release.
      }
      this.fd = undefined
    }
    this.finish?.()
    this.finish = undefined
  }
}
