// A guard in front of the JSON-RPC reader: passes on only well-formed LSP frames
// (a header with Content-Length, then that many bytes of JSON) and reports what it drops,
// so noise a server prints on stdout never costs a real message after it.

import { Transform, type TransformCallback } from 'node:stream'

const SEPARATOR = Buffer.from('\r\n\r\n')
const LENGTH = /^content-length: *(\d+) *$/im
/** Past this, a header that never ends is garbage. */
const MAX_HEADER_BYTES = 8192

export class FrameGuard extends Transform {
  private buffer = Buffer.alloc(0)

  constructor(private readonly dropped: (what: string) => void) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.buffer = Buffer.concat([this.buffer, chunk])
    for (;;) {
      const end = this.buffer.indexOf(SEPARATOR)
      if (end < 0) {
        if (this.buffer.length > MAX_HEADER_BYTES) this.skip(this.buffer.length, 'an endless header')
        break
      }
      const length = LENGTH.exec(this.buffer.subarray(0, end).toString('latin1'))?.[1]
      if (length === undefined) {
        this.skip(end + SEPARATOR.length, 'a header without Content-Length')
        continue
      }
      const total = end + SEPARATOR.length + Number(length)
      if (this.buffer.length < total) break
      const body = this.buffer.subarray(end + SEPARATOR.length, total)
      if (isJson(body)) this.push(this.buffer.subarray(0, total))
      else this.dropped(`a body that is not JSON: ${preview(body)}`)
      this.buffer = this.buffer.subarray(total)
    }
    done()
  }

  private skip(bytes: number, what: string): void {
    this.dropped(`${what}: ${preview(this.buffer.subarray(0, bytes))}`)
    this.buffer = this.buffer.subarray(bytes)
  }
}

function isJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'))
    return true
  } catch {
    return false
  }
}

function preview(bytes: Buffer): string {
  const text = bytes.toString('utf8').replace(/\s+/g, ' ').trim()
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
