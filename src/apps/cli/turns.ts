// The TURNS column of `dsh sessions list` for JSONL logs: the number of the last turn,
// read from the end of the file. Session summaries carry no turn count.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

const TAIL_BYTES = 8 * 1024
const NEWLINE = 0x0a
/**
 * Written literally by the JSONL codec (`{"seq":..,"type":"turn/end",..}`). Inside a JSON
 * string every quote is escaped, so this byte sequence only ever starts an event's type.
 */
const TURN_MARK = Buffer.from('"type":"turn/')
/** Reused by every call: reads are synchronous and nothing keeps a view past the call. */
const BUFFER = Buffer.allocUnsafe(TAIL_BYTES)

/**
 * The number of the last turn (`turn/end` or `turn/start`) in a JSONL log, from its last
 * 8 KiB; turns count from 1. Zero when the log has no turn; null when the file is gone
 * or its tail cannot tell (a last turn marker further back than 8 KiB).
 */
export function turnsFromTail(path: string): number | null {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return null // removed since it was listed
  }
  try {
    let from = 0
    let read = readSync(fd, BUFFER, 0, TAIL_BYTES, 0)
    if (read === TAIL_BYTES) {
      const size = fstatSync(fd).size
      if (size > TAIL_BYTES) {
        from = size - TAIL_BYTES
        read = readSync(fd, BUFFER, 0, TAIL_BYTES, from)
      }
    }
    const bytes = BUFFER.subarray(0, read)
    for (let at = bytes.length; at > 0; ) {
      const mark = bytes.lastIndexOf(TURN_MARK, at - 1)
      if (mark === -1) break
      const start = bytes.lastIndexOf(NEWLINE, mark) + 1
      const end = bytes.indexOf(NEWLINE, mark)
      // A line cut by the start of the window, or torn at the end, is not trusted.
      if (end !== -1 && (start > 0 || from === 0)) {
        const turn = turnOf(bytes.toString('utf8', start, end))
        if (turn !== undefined) return turn
      }
      at = mark
    }
    return from === 0 ? 0 : null
  } finally {
    closeSync(fd)
  }
}

function turnOf(line: string): number | undefined {
  try {
    const event = JSON.parse(line) as { type?: unknown; data?: { turn?: unknown } } | null
    const turn = event?.data?.turn
    if ((event?.type === 'turn/end' || event?.type === 'turn/start') && typeof turn === 'number') return turn
  } catch {
    // A damaged line: look further back.
  }
  return undefined
}
