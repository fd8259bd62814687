// Node streams to the web streams the ACP SDK's newline-delimited JSON transport reads and writes.

import { Readable, Writable } from 'node:stream'
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk'

export function nodeNdJsonStream(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Stream {
  const readable = input instanceof Readable ? input : new Readable().wrap(input)
  const writable = output as Writable
  return ndJsonStream(
    Writable.toWeb(writable) as WritableStream<Uint8Array>,
    Readable.toWeb(readable) as ReadableStream<Uint8Array>,
  )
}
