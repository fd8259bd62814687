// Server-sent events: reads a response body and yields the `data` of each event,
// parsed by eventsource-parser. Cancels the body when the consumer stops early.

import { createParser } from 'eventsource-parser'

/**
 * Yields the data field of every event in `body`, in order. `onBytes` is called for each
 * received piece (keep-alive comments included), so callers can run an idle timer.
 * Rejects with whatever the body rejects with (a dropped connection, an abort).
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncGenerator<string> {
  const pending: string[] = []
  const parser = createParser({ onEvent: (event) => pending.push(event.data) })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let done = false
  try {
    while (true) {
      const next = await reader.read()
      if (next.done) {
        done = true
        // An event missing its final newline or blank line still counts.
        parser.feed(`${decoder.decode()}\n\n`)
      } else {
        onBytes()
        parser.feed(decoder.decode(next.value, { stream: true }))
      }
      while (pending.length > 0) yield pending.shift()!
      if (done) return
    }
  } finally {
    if (!done) {
      // The consumer stopped early or the read failed: release the connection.
      reader.cancel().catch(() => {
        // Cancelling an already failed body rejects again; nothing is left to release.
      })
    }
  }
}
