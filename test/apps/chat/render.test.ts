// The chat renderer's shortcuts against the libraries they stand in for: the narrow-width
// fast path against string-width, skipping wrap-ansi for lines that fit, and code blocks
// highlighted line by line with highlight.js state carried from one line to the next.

import fc from 'fast-check'
import stringWidth from 'string-width'
import { expect, it } from 'vitest'
import wrapAnsi from 'wrap-ansi'
import { displayWidth, narrowWidth } from '../../../src/apps/chat/width.js'

/** Characters from inside and around the fast path's set, and SGR sequences between them. */
const piece = fc.oneof(
  fc.constantFrom(
    'a',
    'Z',
    '0',
    ' ',
    ' ',
    '~',
    '*',
    '│',
    '─',
    '•',
    '—',
    '“',
    '…',
    '→',
    '≤',
    'é',
    'Ł',
    '⠋',
    '✓',
  ),
  fc.constantFrom('\u00ad', 'e\u0301', '日', '🎉', '✅', '⌚', '\u200b', '\u25fd', '\ufe0f', '\t'),
  fc.constantFrom('\u001b[1m', '\u001b[22m', '\u001b[35m', '\u001b[39m', '\u001b[2m'),
)
const text = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''))

it('counts every character of the narrow set as one column, as string-width does', () => {
  let counted = 0
  for (let code = 0x20; code < 0x3000; code++) {
    const char = String.fromCodePoint(code)
    if (narrowWidth(char) === undefined) continue
    counted++
    expect(stringWidth(char), `U+${code.toString(16)}`).toBe(1)
    // wrap-ansi normalizes to NFC; a line of these is already normal.
    expect(char.normalize(), `U+${code.toString(16)}`).toBe(char)
  }
  expect(counted).toBeGreaterThan(1000)
  expect(narrowWidth('\u00ad')).toBeUndefined()
  expect(narrowWidth('e\u0301')).toBeUndefined()
  expect(narrowWidth('✅')).toBeUndefined()
})

it('measures any text as string-width does', () => {
  fc.assert(
    fc.property(text, (sample) => {
      expect(displayWidth(sample)).toBe(stringWidth(sample))
    }),
    { numRuns: 2000 },
  )
})

it('leaves a narrow line that fits as wrap-ansi would (so the renderer need not call it)', () => {
  fc.assert(
    fc.property(text, fc.integer({ min: 10, max: 60 }), (sample, room) => {
      const width = narrowWidth(sample)
      fc.pre(width !== undefined && width <= room)
      expect(wrapAnsi(sample, room, { hard: true, trim: false })).toBe(sample)
    }),
    { numRuns: 2000 },
  )
})
