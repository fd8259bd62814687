// Where a stdio server's stderr goes: one append-only log file per server name under the
// harness home, never the terminal. The last line is kept to explain a failed start.

import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { normalizeName } from './naming.js'

/** `<home>/logs/mcp/<server>.log` */
export function serverLogPath(home: string, server: string): string {
  return join(home, 'logs', 'mcp', `${normalizeName(server)}.log`)
}

/**
 * Lines that never explain a failure: what Node prints after an uncaught error (stack
 * frames, the error's fields, the caret line, its version banner).
 */
const NOISE =
  /^(at |Node\.js v\d|[{}\]^]+$|[a-z]\w*: (['"[{\d]|true|false|null|undefined)|throw |node:internal\/)/

export class ServerLog {
  private stream: WriteStream | undefined
  private lastLine = ''

  constructor(readonly path: string) {}

  /** Copies `stderr` into the log (after a header line naming this start). */
  attach(stderr: Readable, header: string): void {
    if (!this.stream) {
      mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 })
      this.stream = createWriteStream(this.path, { flags: 'a', mode: 0o600 })
      this.stream.on('error', () => {
        // A log that cannot be written must not take the server down; stderr is then lost.
      })
    }
    this.stream.write(`--- ${new Date().toISOString()} ${header}\n`)
    stderr.on('data', (chunk: Buffer) => {
      this.stream?.write(chunk)
      const lines = chunk
        .toString('utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
      const telling = lines.filter((line) => !NOISE.test(line))
      if (telling.length > 0) this.lastLine = telling.at(-1)!.slice(0, 200)
    })
  }

  /** The last non-empty stderr line, for a one-line failure report. */
  get last(): string {
    return this.lastLine
  }

  close(): void {
    this.stream?.end()
    this.stream = undefined
  }
}
