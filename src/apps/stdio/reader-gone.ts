// Noticing that the reader of dsh's stdout went away before anything is written to it. A
// client that spawned dsh from Node (most editors) holds the other end of a socket pair:
// reading our end gives EOF the moment it closes. A pipe's write end cannot be watched that
// way (libuv polls it only while a write is pending; Node has no poll()), so there the next
// write's EPIPE is the first sign.

import { Socket } from 'node:net'

/** The libuv stream handle behind a `net.Socket`: internal to Node, checked before use. */
interface StreamHandle {
  readStart(): number
  readStop(): number
  onread: ((buffer: ArrayBuffer | undefined) => void) | undefined
}

function handleOf(output: NodeJS.WritableStream): StreamHandle | undefined {
  // A terminal is read by stdin (reading it here would steal keys); a readable socket reports
  // its own end; only a write-only socket (process.stdout on a socket pair) needs watching.
  if (!(output instanceof Socket) || (output as { isTTY?: boolean }).isTTY || output.readable)
    return undefined
  const handle = (output as unknown as { _handle?: Partial<StreamHandle> })._handle
  if (typeof handle?.readStart !== 'function' || typeof handle.readStop !== 'function') return undefined
  return handle as StreamHandle
}

/**
 * Calls `gone` once when the reader of `output` closes its end, where that can be seen
 * without writing (see above); elsewhere never. Returns the function that stops watching
 * (it must be called: a watched handle keeps the process alive).
 */
export function watchReaderGone(output: NodeJS.WritableStream, gone: () => void): () => void {
  const handle = handleOf(output)
  if (!handle) return () => {}
  const previous = handle.onread
  let watching = true
  const stop = () => {
    if (!watching) return
    watching = false
    handle.readStop()
    handle.onread = previous
  }
  handle.onread = (buffer) => {
    // Data (a client writing into our stdout) is dropped; no buffer means EOF or an error.
    if (buffer !== undefined || !watching) return
    stop()
    gone()
  }
  // Not readable (a pipe's write end): nothing to watch.
  if (handle.readStart() !== 0) {
    watching = false
    handle.onread = previous
  }
  return stop
}
