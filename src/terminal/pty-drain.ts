// node-pty reports a program's exit once its terminal closes, but stops waiting 200 ms after
// the exit and destroys the terminal's socket, dropping output the kernel still holds (a
// flood that ends while dsh reads behind, or a machine so busy that 200 ms pass unread).
// Just before that destroy, this reads what is left straight from the terminal's file
// descriptor and hands it on as ordinary output.

import { readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import type { IPty } from '@lydell/node-pty'

/** A program still writing through a kept-open terminal cannot hold the exit up longer. */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024
const CHUNK_BYTES = 256 * 1024

/** The parts of node-pty's Unix terminal this relies on (pinned version; checked at run time). */
interface UnixPtyInternals {
  _fd?: unknown
  _socket?: {
    destroy?: unknown
    _readableState?: { decoder?: { write?: unknown } | null }
  }
}

/**
 * Makes `pty` pass what the kernel still holds to `output` before node-pty destroys its
 * socket. Does nothing where node-pty is not built as expected (then the 200 ms limit stays).
 */
export function keepLastOutput(pty: IPty, output: (data: string) => void): void {
  const internals = pty as unknown as UnixPtyInternals
  const socket = internals._socket
  const fd = internals._fd
  if (typeof fd !== 'number' || !socket || typeof socket.destroy !== 'function') return
  const destroy = socket.destroy as (...args: unknown[]) => unknown
  let drained = false
  socket.destroy = function (this: unknown, ...args: unknown[]) {
    if (!drained) {
      drained = true
      // The socket's own decoder may hold the first bytes of a character split by the kernel.
      const own = socket._readableState?.decoder
      const decoder =
        own && typeof own.write === 'function' ? (own as StringDecoder) : new StringDecoder('utf8')
      const text = drain(fd, decoder)
      if (text !== '') output(text)
    }
    return destroy.apply(this, args)
  }
}

/** Reads the descriptor (non-blocking) until it has nothing more now, is closed, or the limit. */
function drain(fd: number, decoder: StringDecoder): string {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  const parts: string[] = []
  let total = 0
  while (total < DRAIN_LIMIT_BYTES) {
    let count: number
    try {
      count = readSync(fd, buffer, 0, CHUNK_BYTES, null)
    } catch {
      // EAGAIN: nothing more for now; EIO: every writer is gone. Either way, done.
      break
    }
    if (count <= 0) break
    total += count
    parts.push(decoder.write(buffer.subarray(0, count)))
  }
  return parts.join('')
}
