// SSE reading: events split across network pieces, comments, and an unterminated last event.

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
})
