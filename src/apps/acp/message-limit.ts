// The size limit of one incoming ACP message. The SDK's reader closes the whole connection at
// its limit without a word; dsh frames lines itself first, so a line over the limit is dropped
// and its request answered with an error while the connection goes on.

import { Transform, type TransformCallback } from 'node:stream'
import type { AnyMessage } from '@agentclientprotocol/sdk'
import { AcpErrorCode } from './errors.js'

/** The largest message dsh reads: 32 MiB, the SDK's own default (its reader gets no more). */
export const ACP_MAX_MESSAGE_BYTES = 32 * 1024 * 1024

export type JsonRpcId = string | number | null

const NEWLINE = 0x0a
/** Longer raw ids are not looked for (no client sends one). */
const MAX_ID_BYTES = 1024

/**
 * Finds the top-level `"id"` of a JSON object fed in pieces, without keeping the rest: the
 * id of a request too large to parse. Undefined until found (and for a notification).
 */
class TopLevelIdScanner {
  id: JsonRpcId | undefined
  private done = false
  private depth = 0
  private inString = false
  private escaped = false
  /** At depth 1, after `{` or `,`: the next string is a key. */
  private expectKey = false
  /** The bytes of the depth-1 key being read. */
  private key: number[] | undefined
  /** 1: after the key `"id"`, before `:`; 2: before its value. */
  private idStage = 0
  /** The raw bytes of the id's value being read. */
  private value: number[] | undefined

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.done; i++) this.step(bytes[i]!)
  }

  private step(byte: number): void {
    if (this.value) this.valueByte(byte)
    else if (this.inString) this.stringByte(byte)
    else if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) return
    else if (this.idStage === 2) {
      this.value = []
      this.valueByte(byte)
    } else this.structureByte(byte)
  }

  private structureByte(byte: number): void {
    switch (byte) {
      case 0x22: // "
        this.inString = true
        if (this.depth === 1 && this.expectKey) this.key = []
        this.expectKey = false
        return
      case 0x7b: // {
      case 0x5b: // [
        this.depth++
        this.expectKey = byte === 0x7b && this.depth === 1
        return
      case 0x7d: // }
      case 0x5d: // ]
        this.depth--
        if (this.depth <= 0) this.done = true
        return
      case 0x2c: // ,
        this.expectKey = this.depth === 1
        return
      case 0x3a: // :
        if (this.idStage === 1) this.idStage = 2
        return
    }
  }

  private stringByte(byte: number): void {
    if (this.escaped) this.escaped = false
    else if (byte === 0x5c) this.escaped = true
    else if (byte === 0x22) {
      this.inString = false
      if (this.key) this.idStage = String.fromCharCode(...this.key) === 'id' ? 1 : 0
      this.key = undefined
      return
    }
    // Three bytes tell "id" from every other key.
    if (this.key && this.key.length < 3) this.key.push(byte)
  }

  /** A string, number or null, read raw and parsed at its end; anything else is no id. */
  private valueByte(byte: number): void {
    const value = this.value!
    const isString = value[0] === 0x22
    const ends = isString
      ? byte === 0x22 && !this.escaped
      : byte === 0x2c || byte === 0x7d || byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
    if (isString) this.escaped = !this.escaped && byte === 0x5c
    if (!ends || isString) value.push(byte)
    if (value.length > MAX_ID_BYTES) this.done = true
    if (!ends) return
    this.done = true
    try {
      const id: unknown = JSON.parse(Buffer.from(value).toString('utf8'))
      if (id === null || typeof id === 'string' || typeof id === 'number') this.id = id
    } catch {
      // Not a JSON value: no id to answer to.
    }
  }
}

/**
 * Passes `input` on line by line; a line over `maxBytes` is dropped and `refused` gets the
 * id of its request (undefined when it has none: a notification, or not JSON). A line is
 * held until complete, so at most one message is buffered.
 */
export function limitMessages(
  input: NodeJS.ReadableStream,
  maxBytes: number,
  refused: (id: JsonRpcId | undefined, bytes: number) => void,
): Transform {
  let line: Buffer[] = []
  let length = 0
  let dropping: TopLevelIdScanner | undefined
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      let start = 0
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, start)
        const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline)
        length += piece.length
        if (dropping) dropping.push(piece)
        else if (length > maxBytes) {
          dropping = new TopLevelIdScanner()
          for (const held of [...line, piece]) dropping.push(held)
          line = []
        } else line.push(piece)
        if (newline === -1) break
        end(true)
        start = newline + 1
      }
      callback()
    },
    flush(callback: TransformCallback) {
      end(false)
      callback()
    },
  })
  const end = (newline: boolean) => {
    if (dropping) refused(dropping.id, length)
    else {
      for (const held of line) limiter.push(held)
      if (newline) limiter.push(Buffer.from([NEWLINE]))
    }
    line = []
    length = 0
    dropping = undefined
  }
  input.on('error', (error) => limiter.destroy(error))
  return input.pipe(limiter)
}

/** The answer to a request whose message was over the limit. */
export function tooLargeResponse(id: JsonRpcId, bytes: number, maxBytes: number): AnyMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: `the message is over ${maxBytes} bytes (${bytes}); it was not read`,
      data: { code: AcpErrorCode.MessageTooLarge, maxBytes, bytes },
    },
  }
}
