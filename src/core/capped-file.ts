// The one way dsh reads a configuration-like file it did not write (config.yaml, .mcp.json,
// settings and hook files, instruction and skill files): with a size cap checked before
// anything is parsed, so a huge file is refused in one line instead of filling the heap.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { DshError } from './errors.js'

/** The cap on every project file dsh reads (`.mcp.json`, settings, hooks, instructions, skills): 1 MiB. */
export const MAX_PROJECT_FILE_BYTES = 1024 * 1024

export interface FileCap {
  /** Largest size accepted, in bytes. */
  maxBytes: number
  /** What the file is, for the message: "config file", "MCP file", "settings file". */
  what: string
  /** The error code of the caller's seam. */
  code: string
}

/** `1 MiB`, `64 KiB`, or bytes: the limit as the message says it. */
export function formatByteLimit(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/**
 * Reads `path` as UTF-8 if it holds at most `cap.maxBytes`. A larger file throws a
 * user-facing DshError naming the file, its size and the limit, read no further than the
 * limit (a regular file is judged by its size before a byte is read; anything else, or a
 * file that grows, by what was read). Other failures (ENOENT, EACCES) throw as `fs` does.
 */
export function readCappedText(path: string, cap: FileCap): string {
  const fd = openSync(path, 'r')
  try {
    const stat = fstatSync(fd)
    if (stat.isFile() && stat.size > cap.maxBytes) throw tooLarge(path, cap, `${stat.size} bytes`)
    const chunks: Buffer[] = []
    let total = 0
    const chunkSize = Math.min(cap.maxBytes + 1, stat.isFile() ? stat.size + 1 : 64 * 1024)
    while (true) {
      const chunk = Buffer.allocUnsafe(chunkSize)
      const read = readSync(fd, chunk, 0, chunk.length, null)
      if (read === 0) break
      total += read
      if (total > cap.maxBytes) throw tooLarge(path, cap, `over ${cap.maxBytes} bytes`)
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read))
    }
    return Buffer.concat(chunks, total).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

function tooLarge(path: string, cap: FileCap, size: string): DshError {
  return new DshError(
    `${path}: ${cap.what} is ${size}; the limit is ${cap.maxBytes} (${formatByteLimit(cap.maxBytes)})`,
    cap.code,
    { userFacing: true },
  )
}
