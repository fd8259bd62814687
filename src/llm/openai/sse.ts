// Server-sent events: reads a response body and yields the `data` of each event,
// parsed by eventsource-parser. Releases the body when the consumer stops early.

import { createParser } from 'eventsource-parser'

/**
 * Yields the data field of every event in `body`, in order: a Node stream (the model answer
 * over node:http, read as is, without loading the web streams its conversion needs) or a
 * web ReadableStream (fetch's body, through a proxy). `onBytes` is called for each received
 * piece (keep-alive comments included), so callers can run an idle timer. Rejects with
 * whatever the body rejects with (a dropped connection, an abort).
 */
export async function* readSseData(
  body: AsyncIterable<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncGenerator<string> {
  const pending: string[] = []
  const parser = createParser({ onEvent: (event) => pending.push(event.data) })
  const decoder = new TextDecoder()
  // Stopping early (a return or throw from the consumer while suspended here) ends the
  // for-await, which calls the body's return(): the body releases its connection (a plain
  // Node stream is destroyed, a web stream cancelled; outbound-post's body reads itself to
  // the end so the connection is kept).
  for await (const piece of body) {
    onBytes()
    parser.feed(decoder.decode(piece, { stream: true }))
    while (pending.length > 0) yield pending.shift()!
  }
  // An event missing its final newline or blank line still counts.
  parser.feed(`${decoder.decode()}\n\n`)
  while (pending.length > 0) yield pending.shift()!
}
