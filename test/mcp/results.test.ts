// MCP results with structuredContent reach the model once: the text content when the
// server provides it, the structured content only when there is no text.

import { expect, it } from 'vitest'
import { resultText } from '../../src/mcp/results.js'

const data = { city: 'Chicago', temperature: 22 }

it('text content wins: the structured copy is not sent again, however it is formatted', () => {
  for (const text of [JSON.stringify(data), JSON.stringify(data, null, 4), 'It is 22 degrees in Chicago.']) {
    expect(resultText({ content: [{ type: 'text', text }], structuredContent: data })).toBe(text)
  }
})

it('structured content is sent when no text came with it', () => {
  expect(resultText({ structuredContent: data })).toBe(
    `[structured content]\n${JSON.stringify(data, null, 2)}`,
  )
  expect(
    resultText({
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      structuredContent: data,
    }),
  ).toBe(`[image: image/png, 3 bytes]\n[structured content]\n${JSON.stringify(data, null, 2)}`)
})

it('images and audio are described by their decoded size, padding not counted', () => {
  const bytes = Buffer.alloc(70, 7)
  const data = bytes.toString('base64')
  expect(data).toHaveLength(96)
  expect(data.endsWith('==')).toBe(true)
  expect(resultText({ content: [{ type: 'image', data, mimeType: 'image/png' }] })).toBe(
    '[image: image/png, 70 bytes]',
  )
  expect(resultText({ content: [{ type: 'audio', data: Buffer.alloc(71).toString('base64') }] })).toBe(
    '[audio: unknown type, 71 bytes]',
  )
})
