// The head-and-tail summary of a stored log for fast listings (header, title, count, last
// activity, usage ledger) without reading the middle; the full scan is reader.ts.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { SessionEvent, SessionEventMap, SessionSummary } from '../../session/types.js'
import { emptyLedger, foldUsage, type UsageLedger } from '../../usage/ledger.js'
import { parseLedger } from '../../usage/ledger-schema.js'
import { givenTitle, shortenTitle } from '../repair.js'
import { TITLE_LINE_FIELD, USAGE_LINE_FIELD } from './codec.js'
import { corrupt, headerFrom, NEWLINE } from './reader.js'

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
    // Usually the log ends with a turn/end line, which carries the ledger and given title itself.
    const tail: TailState | undefined =
      event.type === 'turn/end'
        ? { usage: parseLedger(line![USAGE_LINE_FIELD]), title: carriedTitle(line) }
        : usageFromEnd(fd, size, head, headerEnd, seedLength)
    if (!tail?.usage) return undefined
    summary.usage = tail.usage
    if (tail.title !== undefined) summary.title = tail.title
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
function usageFromEnd(
  fd: number,
  size: number,
  head: Buffer,
  headerEnd: number,
  seedLength: number,
): TailState | undefined {
  const { found, bytes, after } = lastMarkedLineFromEnd(fd, size, head, TURN_END_MARK, (text) => {
    const line = parseLine(text)
    return eventOf(line)?.type === 'turn/end' ? line : undefined
  })
  if (found === undefined) return foldLines({ usage: emptyLedger() }, bytes, headerEnd + 1, seedLength)
  const ledger = parseLedger(found[USAGE_LINE_FIELD])
  return ledger && foldLines({ usage: ledger, title: carriedTitle(found) }, bytes, after, seedLength)
}

/** The ledger and given title at some point of a log. */
interface TailState {
  usage: UsageLedger | undefined
  title?: string | undefined
}

/**
 * Folds the whole event lines of `bytes` from `offset` on into `state` (usage, and the title a
 * `session/title` event past the seed gives); undefined if one cannot be read.
 */
function foldLines(
  state: TailState,
  bytes: Buffer,
  offset: number,
  seedLength: number,
): TailState | undefined {
  for (let start = offset; ; ) {
    const end = bytes.indexOf(NEWLINE, start)
    if (end === -1) return state // a torn tail is not part of the log
    const event = eventOf(parseLine(bytes.toString('utf8', start, end)))
    if (!event) return undefined
    foldUsage(state.usage!, [event])
    if (event.type === 'session/title') state.title = givenTitle([event], seedLength) ?? state.title
    start = end + 1
  }
}

/** The given title a `turn/end` line carries (TITLE_LINE_FIELD), if any. */
function carriedTitle(line: StoredLine | undefined): string | undefined {
  const title = line?.[TITLE_LINE_FIELD]
  return typeof title === 'string' && title !== '' ? title : undefined
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
