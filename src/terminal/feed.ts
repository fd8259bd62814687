// Hands a terminal's output to its screen. Output after a quiet spell goes over at once
// (a typed key's echo). Output that arrives while the screen parses waits here, and while
// it keeps coming it goes over in batches a short time apart (chunks are not copied: the
// emulator queues them itself). A batch leaves out plain-text lines that the lines after
// them would push out of the scrollback before anyone could see them: parsing them would
// not change the screen, only cost time (the transcript has everything). Past a bound,
// only the newest output waits (bounded memory).

import type { Screen } from './screen.js'

/** While output keeps coming, the screen takes it this often (live views lag at most this). */
const BATCH_MS = 100
/** Past this much waiting, only the newest part of what waits is kept. */
const MAX_WAITING_CHARS = 512_000
/** What a cut keeps, cut at a line start. */
const KEPT_CHARS = 256_000
/**
 * Anything but printable text, tab, backspace, CR and LF: a stretch holding one of these
 * may change the terminal's state (modes, colours, charsets, an open string) and is parsed.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const STATEFUL = /[\x00-\x07\x0b\x0c\x0e-\x1f\x7f-\x9f]/g

export class ScreenFeed {
  /** A batch is in the screen's queue, not parsed yet. */
  private parsing = false
  private waiting: string[] = []
  private waitingChars = 0
  private timer: NodeJS.Timeout | undefined

  /** `onParsed` runs whenever the screen has caught up with a batch. */
  constructor(
    private readonly screen: Screen,
    private readonly onParsed: () => void,
  ) {}

  /** Everything received is on the screen. */
  get settled(): boolean {
    return !this.parsing && this.waitingChars === 0
  }

  push(data: string): void {
    if (!this.parsing && this.waitingChars === 0 && this.timer === undefined) {
      this.hand([data])
      return
    }
    this.waiting.push(data)
    this.waitingChars += data.length
    if (this.waitingChars > MAX_WAITING_CHARS) {
      this.leaveOutUnseen()
      if (this.waitingChars > MAX_WAITING_CHARS) this.cut()
    }
  }

  /** Resolves once everything received so far is on the screen. */
  settle(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    this.handWaiting()
    return new Promise((resolve) => this.screen.write('', resolve))
  }

  /** Forgets what waits (the screen is being disposed). */
  dispose(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.waiting = []
    this.waitingChars = 0
  }

  /** Writes a batch; the callback on its last chunk says when all of it is parsed. */
  private hand(chunks: string[]): void {
    this.parsing = true
    const last = chunks.length - 1
    for (let i = 0; i < last; i++) this.screen.write(chunks[i]!)
    this.screen.write(chunks[last]!, () => {
      this.parsing = false
      // More came meanwhile: output is streaming; let the next batch gather.
      if (this.waitingChars > 0 && this.timer === undefined) {
        this.timer = setTimeout(() => {
          this.timer = undefined
          if (!this.parsing) this.handWaiting()
        }, BATCH_MS)
        this.timer.unref()
      }
      this.onParsed()
    })
  }

  private handWaiting(): void {
    if (this.waitingChars === 0) return
    this.leaveOutUnseen()
    const waiting = this.waiting
    this.waiting = []
    this.waitingChars = 0
    this.hand(waiting)
  }

  /**
   * Leaves out the plain-text lines of what waits that more lines than the screen and its
   * scrollback hold come after. The first line is always kept: the screen may be in the
   * middle of an escape sequence that it ends.
   */
  private leaveOutUnseen(): void {
    const chunks = this.waiting
    // The cut: just after the line end that has `capacity` more line ends after it.
    let ends = 0
    let cutChunk = -1
    let cutAt = 0
    for (let i = chunks.length - 1; i >= 0 && cutChunk < 0; i--) {
      const chunk = chunks[i]!
      for (let at = chunk.lastIndexOf('\n'); at >= 0; at = at === 0 ? -1 : chunk.lastIndexOf('\n', at - 1)) {
        if (++ends > this.screen.capacity) {
          cutChunk = i
          cutAt = at + 1
          break
        }
      }
    }
    if (cutChunk < 0) return
    // The start: just after the first line end.
    let startChunk = 0
    let startAt = -1
    for (; startChunk <= cutChunk; startChunk++) {
      startAt = chunks[startChunk]!.indexOf('\n')
      if (startAt >= 0) break
    }
    startAt += 1
    if (startChunk > cutChunk || (startChunk === cutChunk && startAt >= cutAt)) return
    for (let i = startChunk; i <= cutChunk; i++) {
      const chunk = chunks[i]!
      STATEFUL.lastIndex = i === startChunk ? startAt : 0
      const found = STATEFUL.exec(chunk)
      if (found && (i < cutChunk || found.index < cutAt)) return
    }
    const kept = [
      ...chunks.slice(0, startChunk),
      chunks[startChunk]!.slice(0, startAt),
      chunks[cutChunk]!.slice(cutAt),
      ...chunks.slice(cutChunk + 1),
    ].filter((chunk) => chunk !== '')
    this.waiting = kept
    this.waitingChars = kept.reduce((sum, chunk) => sum + chunk.length, 0)
    this.screen.markDropped()
  }

  /** The screen is far behind with output that changes its state: keep the newest part only. */
  private cut(): void {
    const waiting = this.waiting.join('')
    const from = waiting.indexOf('\n', waiting.length - KEPT_CHARS)
    const kept = from < 0 ? waiting.slice(-KEPT_CHARS) : waiting.slice(from + 1)
    this.waiting = [kept]
    this.waitingChars = kept.length
    this.screen.markDropped()
  }
}
