// Reading stored logs: a streaming full scan that validates every line and finds
// what crash repair must cut, and a head-and-tail summary for fast listings.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { DshError, errorMessage } from '../../core/errors.js'
import { validateEvent } from '../../session/session.js'
import type { SessionEvent, SessionEventMap, SessionHeader, SessionSummary } from '../../session/types.js'
import { emptyLedger, foldUsage, type UsageLedger } from '../../usage/ledger.js'
import { parseLedger } from '../../usage/ledger-schema.js'
import { PersistenceErrorCode } from '../errors.js'
import { shortenTitle } from '../repair.js'
import { HEADER_LINE_TYPE, parseStoredHeader, USAGE_LINE_FIELD } from './codec.js'

export interface ScannedLog {
  header: SessionHeader
  /** Every valid event before the first damaged line. */
  events: SessionEvent[]
  /** Bytes in the file when it was read. */
  size: number
  /** End offset of the last valid line; bytes past it are a torn or damaged open tail. */
  validEnd: number
  /** The first damaged line (1-based, header = line 1) when one sits in the open tail. */
  damagedLine?: { line: number; reason: string }
}

const READ_CHUNK_BYTES = 1 << 20
const FIRST_CHUNK_BYTES = 64 * 1024
const NEWLINE = 0x0a

/**
 * Reads and validates a whole log. Bytes after the last newline are a torn tail. A
 * damaged line (unparsable or invalid) followed by a later `turn/end` is corruption
 * and rejects with PERSISTENCE_CORRUPT naming the file and line; a damaged line in
 * the open tail is reported in `damagedLine` and excluded with everything after it.
 */
export async function scanLog(path: string): Promise<ScannedLog> {
  const scanner = new LogScanner(path)
  const handle = await open(path, 'r')
  let size = 0
  try {
    // Small first, 1 MiB once a log proves big: a 1 MiB buffer for every small log made
    // listing many sessions mostly garbage collection.
    let chunkBytes = FIRST_CHUNK_BYTES
    let chunk = Buffer.allocUnsafe(chunkBytes)
    let partial: Buffer[] = [] // bytes of an unfinished line, copied out of `chunk`
    let base = 0 // file offset of the first byte not yet scanned
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, size)
      if (bytesRead === 0) break
      size += bytesRead
      let bytes = chunk.subarray(0, bytesRead)
      const last = bytes.lastIndexOf(NEWLINE)
      if (last === -1) {
        partial.push(Buffer.from(bytes))
        continue
      }
      if (partial.length > 0) {
        bytes = Buffer.concat([...partial, bytes])
        partial = []
      }
      const end = bytes.length - (bytesRead - last) + 1
      // Whole lines only, so no UTF-8 sequence is split (0x0A never occurs inside one).
      scanner.block(bytes.toString('utf8', 0, end - 1), base, base + end)
      base += end
      if (end < bytes.length) partial.push(Buffer.from(bytes.subarray(end)))
      // A full first read: the log is big, read on in large chunks (nothing views `chunk` now).
      if (bytesRead === chunkBytes && chunkBytes < READ_CHUNK_BYTES) {
        chunkBytes = READ_CHUNK_BYTES
        chunk = Buffer.allocUnsafe(chunkBytes)
      }
    }
  } finally {
    await handle.close()
  }
  return scanner.finish(size)
}

class LogScanner {
  private header: SessionHeader | undefined
  private readonly events: SessionEvent[] = []
  private validEnd = 0
  private lineNumber = 0
  private damaged: { line: number; offset: number; reason: string } | undefined

  constructor(private readonly path: string) {}

  /** Scans newline-separated lines (`text` has no final newline) starting at byte `base` and ending at `end`. */
  block(text: string, base: number, end: number): void {
    let from = 0
    while (from <= text.length) {
      let newline = text.indexOf('\n', from)
      if (newline === -1) newline = text.length
      this.lineNumber++
      const line = text.slice(from, newline)
      if (this.damaged) {
        if (line.includes('turn/end') && parsesAsTurnEnd(line)) {
          throw corrupt(
            this.path,
            this.damaged.line,
            `${this.damaged.reason}, and a later turn/end (line ${this.lineNumber}) shows committed turns after it`,
          )
        }
      } else if (!this.header) {
        this.header = this.parseHeader(line)
      } else {
        const reason = this.accept(line)
        if (reason !== undefined) {
          const offset = base + Buffer.byteLength(text.slice(0, from))
          this.damaged = { line: this.lineNumber, offset, reason }
          this.validEnd = offset
        }
      }
      from = newline + 1
    }
    if (!this.damaged) this.validEnd = end
  }

  finish(size: number): ScannedLog {
    if (!this.header) throw corrupt(this.path, 1, 'the header line is missing or incomplete')
    const scanned: ScannedLog = { header: this.header, events: this.events, size, validEnd: this.validEnd }
    if (this.damaged) scanned.damagedLine = { line: this.damaged.line, reason: this.damaged.reason }
    return scanned
  }

  /** Parses and validates one event line; returns why it is damaged, or undefined once accepted. */
  private accept(line: string): string | undefined {
    try {
      const event = JSON.parse(line) as SessionEvent
      if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'not a JSON object'
      if (event.data === undefined) return `event ${event.type}: data is missing`
      // JSON.parse yields plain JSON by construction, so the deep walk over `data` is skipped.
      const { seq, type, time, ignorable } = event
      validateEvent(
        ignorable === undefined
          ? { seq, type, time, data: null }
          : { seq, type, time, data: null, ignorable },
        this.events.length,
      )
      // The line's `message` (the Messages-shape copy for transcript readers) is not part of the event.
      const { data } = event
      this.events.push(
        ignorable === undefined ? { seq, type, time, data } : { seq, type, time, data, ignorable },
      )
      return undefined
    } catch (error) {
      return errorMessage(error)
    }
  }

  private parseHeader(text: string): SessionHeader {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw corrupt(this.path, 1, `the header is not JSON (${errorMessage(error)})`)
    }
    return headerFrom(value, this.path)
  }
}

function headerFrom(value: unknown, path: string): SessionHeader {
  if (
    typeof value !== 'object' ||
    value === null ||
    (value as { type?: unknown }).type !== HEADER_LINE_TYPE
  ) {
    throw corrupt(path, 1, `the first line is not a "${HEADER_LINE_TYPE}" header`)
  }
  const parsed = parseStoredHeader(value)
  if ('problem' in parsed) throw corrupt(path, 1, `invalid header (${parsed.problem})`)
  const { type: _type, ...header } = parsed.header as SessionHeader & { type?: string }
  return header
}

function parsesAsTurnEnd(text: string): boolean {
  try {
    return (JSON.parse(text) as { type?: unknown } | null)?.type === 'turn/end'
  } catch {
    return false // still damaged: it cannot prove a committed turn
  }
}

function corrupt(path: string, line: number, reason: string): DshError {
  return new DshError(
    `session file ${path} is corrupt at line ${line}: ${reason}`,
    PersistenceErrorCode.Corrupt,
    {
      userFacing: true,
    },
  )
}

const HEAD_BYTES = 16 * 1024
const TAIL_BYTES = 4 * 1024
/** How far into a file the title (first user message) is looked for. */
const TITLE_SCAN_BYTES = 256 * 1024
/** Written literally by `eventLines`; inside a JSON string its quotes would be escaped. */
const USER_MESSAGE_MARK = '"type":"user/message"'
/** Reused by every summary: the reads are synchronous and nothing keeps a view past the call. */
const HEAD_BUFFER = Buffer.allocUnsafe(HEAD_BYTES)

/**
 * Summarizes a log from its head (header, first user message) and its tail (last
 * whole line → count and last activity; the last `turn/end` line's usage ledger, plus
 * the events after it) with synchronous reads, without reading the middle. Returns
 * undefined when the last line is damaged or the log predates usage ledgers (its last
 * `turn/end` line has none): the caller must scan.
 */
export function summarizeLogSync(path: string): SessionSummary | undefined {
  const fd = openSync(path, 'r')
  try {
    let head = HEAD_BUFFER.subarray(0, readSync(fd, HEAD_BUFFER, 0, HEAD_BYTES, 0))
    const size = head.length < HEAD_BYTES ? head.length : fstatSync(fd).size
    const grow = (): boolean => {
      if (head.length >= size) return false
      head = Buffer.concat([head, readChunk(fd, head.length, Math.min(head.length, size - head.length))])
      return true
    }

    let headerEnd = head.indexOf(NEWLINE)
    while (headerEnd === -1 && grow()) headerEnd = head.indexOf(NEWLINE)
    if (headerEnd === -1) throw corrupt(path, 1, 'the header line is missing or incomplete')
    const header = headerFrom(JSON.parse(head.toString('utf8', 0, headerEnd)), path)

    const summary: SessionSummary = {
      header,
      eventCount: 0,
      lastActivity: header.createdAt,
      turns: 0,
      usage: emptyLedger(),
    }
    const seedLength = header.seedLength ?? 0
    let start = headerEnd + 1
    for (;;) {
      const mark = head.indexOf(USER_MESSAGE_MARK, start)
      const lineEnd = mark === -1 ? -1 : head.indexOf(NEWLINE, mark)
      if (lineEnd !== -1) {
        const event = parseEvent(head.toString('utf8', head.lastIndexOf(NEWLINE, mark) + 1, lineEnd))
        const text = (event?.data as { text?: unknown } | undefined)?.text
        // A fork's title is its own first message, not one of the seed it copied.
        if (event?.type === 'user/message' && typeof text === 'string' && event.seq >= seedLength) {
          summary.title = shortenTitle(text)
          break
        }
        start = lineEnd + 1
        continue
      }
      if (head.length >= TITLE_SCAN_BYTES || !grow()) break
    }

    const last = head.length === size ? lastLine(head) : lastLineFromEnd(fd, size)
    if (last === undefined) return summary
    const line = parseLine(last)
    const event = eventOf(line)
    if (!event) return undefined
    // Usually the log ends with a turn/end line, which carries the ledger itself.
    const usage =
      event.type === 'turn/end'
        ? parseLedger(line![USAGE_LINE_FIELD])
        : usageFromEnd(fd, size, head, headerEnd)
    if (!usage) return undefined
    summary.usage = usage
    summary.eventCount = event.seq + 1
    summary.lastActivity = event.time
    // A finished session ends with `turn/end`; only an open turn needs a look further back.
    const turnEvent = turnOf(event) !== undefined ? event : lastTurnEventFromEnd(fd, size, head)
    if (turnEvent) {
      summary.turns = turnOf(turnEvent)!
      summary.outcome =
        turnEvent.type === 'turn/start' ? 'open' : (turnEvent.data as SessionEventMap['turn/end']).reason
    }
    return summary
  } finally {
    closeSync(fd)
  }
}

/** The id in a log's header line; undefined when the header cannot be read (a damaged log). */
export function headerIdOf(path: string): string | undefined {
  const fd = openSync(path, 'r')
  try {
    const head = readChunk(fd, 0, HEAD_BYTES)
    const end = head.indexOf(NEWLINE)
    const id = (JSON.parse(head.toString('utf8', 0, end === -1 ? head.length : end)) as { id?: unknown }).id
    return typeof id === 'string' ? id : undefined
  } catch {
    return undefined // not a readable header: the caller treats the file as someone else's
  } finally {
    closeSync(fd)
  }
}

/** The last newline-terminated line after the header, or undefined when there is none. */
function lastLine(bytes: Buffer): string | undefined {
  const end = bytes.lastIndexOf(NEWLINE)
  if (end <= 0) return undefined
  const start = bytes.lastIndexOf(NEWLINE, end - 1)
  return start === -1 ? undefined : bytes.toString('utf8', start + 1, end)
}

function lastLineFromEnd(fd: number, size: number): string | undefined {
  for (let span = TAIL_BYTES; ; span *= 4) {
    const from = Math.max(0, size - span)
    const bytes = readChunk(fd, from, size - from)
    const end = bytes.lastIndexOf(NEWLINE)
    const start = end <= 0 ? -1 : bytes.lastIndexOf(NEWLINE, end - 1)
    if (start !== -1) return bytes.toString('utf8', start + 1, end)
    if (from === 0) return undefined // only the header is complete
  }
}

/** Written literally by the codec; inside a JSON string every quote is escaped. */
const TURN_MARK = Buffer.from('"type":"turn/')
const TURN_END_MARK = Buffer.from('"type":"turn/end"')

/**
 * The usage ledger of a log that does not end with `turn/end`: the last `turn/end` line's
 * ledger with the events after it folded in (an open turn, or events between turns), or
 * every event folded when no turn has ended. Undefined when that line has no ledger (a log
 * from before ledgers) or a line after it cannot be read.
 */
function usageFromEnd(fd: number, size: number, head: Buffer, headerEnd: number): UsageLedger | undefined {
  const { found, bytes, after } = lastMarkedLineFromEnd(fd, size, head, TURN_END_MARK, (text) => {
    const line = parseLine(text)
    return eventOf(line)?.type === 'turn/end' ? line : undefined
  })
  if (found === undefined) return foldLines(emptyLedger(), bytes, headerEnd + 1)
  const ledger = parseLedger(found[USAGE_LINE_FIELD])
  return ledger && foldLines(ledger, bytes, after)
}

/** Folds the whole event lines of `bytes` from `offset` on into `ledger`; undefined if one cannot be read. */
function foldLines(ledger: UsageLedger, bytes: Buffer, offset: number): UsageLedger | undefined {
  for (let start = offset; ; ) {
    const end = bytes.indexOf(NEWLINE, start)
    if (end === -1) return ledger // a torn tail is not part of the log
    const event = eventOf(parseLine(bytes.toString('utf8', start, end)))
    if (!event) return undefined
    foldUsage(ledger, [event])
    start = end + 1
  }
}

/** The last `turn/start` or `turn/end` event, searching back from the end (undefined when none). */
function lastTurnEventFromEnd(fd: number, size: number, head: Buffer): SessionEvent | undefined {
  return lastMarkedLineFromEnd(fd, size, head, TURN_MARK, (text) => {
    const event = parseEvent(text)
    return turnOf(event) !== undefined ? event : undefined
  }).found
}

/**
 * Searches the log back from its end for the last whole line holding `mark` that `accept`
 * turns into a value, widening the window fourfold until the file's start. Gives that value,
 * the window it was found in and the offset after its line; without one, the whole file.
 */
function lastMarkedLineFromEnd<T>(
  fd: number,
  size: number,
  head: Buffer,
  mark: Buffer,
  accept: (text: string) => T | undefined,
): { found: T | undefined; bytes: Buffer; after: number } {
  for (let span = TAIL_BYTES; ; span *= 4) {
    const from = Math.max(0, size - span)
    const bytes = from === 0 && head.length === size ? head : readChunk(fd, from, size - from)
    for (let at = bytes.length; at > 0; ) {
      const found = bytes.lastIndexOf(mark, at - 1)
      if (found === -1) break
      const start = bytes.lastIndexOf(NEWLINE, found) + 1
      const end = bytes.indexOf(NEWLINE, found)
      // A line cut by the window's start, or torn at the end, is not trusted.
      if (end !== -1 && (start > 0 || from === 0)) {
        const value = accept(bytes.toString('utf8', start, end))
        if (value !== undefined) return { found: value, bytes, after: end + 1 }
      }
      at = found
    }
    if (from === 0) return { found: undefined, bytes, after: bytes.length }
  }
}

function turnOf(event: SessionEvent | undefined): number | undefined {
  if (event?.type !== 'turn/start' && event?.type !== 'turn/end') return undefined
  const turn = (event.data as { turn?: unknown } | null)?.turn
  return typeof turn === 'number' ? turn : undefined
}

function readChunk(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length)
  const bytes = readSync(fd, buffer, 0, length, position)
  return bytes === length ? buffer : buffer.subarray(0, bytes)
}

function parseEvent(text: string): SessionEvent | undefined {
  return eventOf(parseLine(text))
}

/** A stored line as parsed JSON (event fields and line fields such as the ledger). */
type StoredLine = Record<string, unknown>

function parseLine(text: string): StoredLine | undefined {
  try {
    const value = JSON.parse(text) as unknown
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as StoredLine
  } catch {
    // A damaged line: the caller falls back to a full scan.
  }
  return undefined
}

function eventOf(line: StoredLine | undefined): SessionEvent | undefined {
  if (typeof line?.seq === 'number' && typeof line.time === 'number' && typeof line.type === 'string')
    return line as unknown as SessionEvent
  return undefined
}
