// Node streams to the web streams the ACP SDK's newline-delimited JSON transport reads and writes.

import { Readable, Writable } from 'node:stream'
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk'
import { limitMessages, tooLargeResponse } from './message-limit.js'

/** The size limit of incoming messages, and who hears of a message over it. */
export interface MessageLimit {
  maxBytes: number
  /** One line for stderr. */
  warn(line: string): void
}

/**
 * Without `limit`, a message over the SDK's 32 MiB closes the connection. With it, such a
 * message is dropped unread: its request is answered ACP_MESSAGE_TOO_LARGE, and `warn` says so.
 */
export function nodeNdJsonStream(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  limit?: MessageLimit,
): Stream {
  const readable = limit
    ? limitMessages(input, limit.maxBytes, (id, bytes) => {
        const answered = id === undefined ? '' : '; its request is answered with an error'
        limit.warn(`a message of ${bytes} bytes is over the ${limit.maxBytes}-byte limit: dropped${answered}`)
        // One write, so it cannot land inside a message the SDK writes.
        if (id !== undefined) output.write(`${JSON.stringify(tooLargeResponse(id, bytes, limit.maxBytes))}\n`)
      })
    : input instanceof Readable
      ? input
      : new Readable().wrap(input)
  return ndJsonStream(
    Writable.toWeb(output as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(readable) as ReadableStream<Uint8Array>,
    // Lines reach the SDK only up to the limit; its own check is then a backstop.
    limit ? { maxMessageBytes: limit.maxBytes } : {},
  )
}
