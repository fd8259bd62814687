// Reading stored logs: a streaming full scan that validates every line and finds
// what crash repair must cut. The head-and-tail summary for listings is log-summary.ts.

import { open } from 'node:fs/promises'
import { DshError, errorMessage } from '../../core/errors.js'
import { validateEvent } from '../../session/session.js'
import type { SessionEvent, SessionHeader } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'
import { HEADER_LINE_TYPE, parseStoredHeader } from './codec.js'
import { ioError, isCode } from './file-log.js'

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
export const NEWLINE = 0x0a

/**
 * Reads and validates a whole log. Bytes after the last newline are a torn tail. A
 * damaged line (unparsable or invalid) followed by a later `turn/end` is corruption
 * and rejects with PERSISTENCE_CORRUPT naming the file and line; a damaged line in
 * the open tail is reported in `damagedLine` and excluded with everything after it.
 */
export async function scanLog(path: string): Promise<ScannedLog> {
  const scanner = new LogScanner(path)
  const unreadable = (error: unknown) => {
    // ENOENT stays as it is: callers answer "unknown session" to it.
    throw isCode(error, 'ENOENT') ? error : ioError(`cannot read session file ${path}`, error)
  }
  const handle = await open(path, 'r').catch(unreadable)
  let size = 0
  try {
    // Small first, 1 MiB once a log proves big: a 1 MiB buffer for every small log made
    // listing many sessions mostly garbage collection.
    let chunkBytes = FIRST_CHUNK_BYTES
    let chunk = Buffer.allocUnsafe(chunkBytes)
    let partial: Buffer[] = [] // bytes of an unfinished line, copied out of `chunk`
    let base = 0 // file offset of the first byte not yet scanned
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, size).catch(unreadable)
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

export function headerFrom(value: unknown, path: string): SessionHeader {
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

export function corrupt(path: string, line: number, reason: string): DshError {
  return new DshError(
    `session file ${path} is corrupt at line ${line}: ${reason}`,
    PersistenceErrorCode.Corrupt,
    {
      userFacing: true,
    },
  )
}
