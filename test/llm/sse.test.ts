// SSE reading: events split across network pieces, comments, and an unterminated last event;
// a body that is a Node stream (node:http's answer) or a web stream (fetch's), released when
// the consumer stops early.

import { PassThrough, Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readSseData } from '../../src/llm/openai/sse.js'

function bodyOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece))
      controller.close()
    },
  })
}

async function read(pieces: string[]): Promise<string[]> {
  const out: string[] = []
  for await (const data of readSseData(bodyOf(pieces))) out.push(data)
  return out
}

describe('readSseData', () => {
  it('joins events split across pieces and skips comments', async () => {
    expect(await read(['data: {"a"', ':1}\n', '\n: keep-alive\n\nda', 'ta: [DONE]\n\n'])).toEqual([
      '{"a":1}',
      '[DONE]',
    ])
  })

  it('keeps a last event that lacks its blank line', async () => {
    expect(await read(['data: one\n\ndata: two\n'])).toEqual(['one', 'two'])
    expect(await read(['data: one\n\ndata: two'])).toEqual(['one', 'two'])
  })

  it('decodes multi-byte characters split between pieces', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n')
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]))
        controller.close()
      },
    })
    const out: string[] = []
    for await (const data of readSseData(body)) out.push(data)
    expect(out).toEqual(['héllo ✓'])
  })

  it('reads a Node stream as it arrives, and destroys it when the consumer stops early', async () => {
    expect(
      await readAll(Readable.from([Buffer.from('data: one\n\nda'), Buffer.from('ta: two\n\n')])),
    ).toEqual(['one', 'two'])
    const body = new PassThrough()
    body.write('data: first\n\n')
    for await (const data of readSseData(body)) {
      expect(data).toBe('first')
      break
    }
    expect(body.destroyed).toBe(true)
  })

  it('cancels a web stream when the consumer stops early', async () => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: first\n\n'))
      },
      cancel() {
        cancelled = true
      },
    })
    for await (const data of readSseData(body)) {
      expect(data).toBe('first')
      break
    }
    expect(cancelled).toBe(true)
  })

  it('rejects with the error the body fails with', async () => {
    const body = new PassThrough()
    body.write('data: first\n\n')
    const seen: string[] = []
    const reading = (async () => {
      for await (const data of readSseData(body)) {
        seen.push(data)
        body.destroy(new Error('socket hang up'))
      }
    })()
    await expect(reading).rejects.toThrow('socket hang up')
    expect(seen).toEqual(['first'])
  })
})

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = []
  for await (const data of readSseData(body)) out.push(data)
  return out
}
