// The frame guard passes well-formed LSP frames on and drops noise, however the bytes are split.

import { expect, it } from 'vitest'
import { FrameGuard } from '../../src/lsp/framing.js'

function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

async function through(input: string, chunkSize: number): Promise<{ out: string; dropped: string[] }> {
  const dropped: string[] = []
  const guard = new FrameGuard((what) => dropped.push(what))
  const parts: Buffer[] = []
  guard.on('data', (chunk: Buffer) => parts.push(chunk))
  const bytes = Buffer.from(input)
  for (let at = 0; at < bytes.length; at += chunkSize) guard.write(bytes.subarray(at, at + chunkSize))
  guard.end()
  await new Promise((resolve) => guard.on('end', resolve))
  return { out: Buffer.concat(parts).toString(), dropped }
}

it.each([1, 3, 7, 1000])('keeps frames and drops noise in chunks of %i bytes', async (size) => {
  const good = [frame('{"jsonrpc":"2.0","id":1,"result":{"é":"ü"}}'), frame('{"jsonrpc":"2.0","method":"x"}')]
  const input = `${good[0]}this is no header\r\n\r\nContent-Length: 5\r\n\r\n{oops${good[1]}`
  const { out, dropped } = await through(input, size)
  expect(out).toBe(good.join(''))
  expect(dropped).toEqual([
    'a header without Content-Length: "this is no header"',
    'a body that is not JSON: "{oops"',
  ])
})
