// The input editor moves and deletes by grapheme cluster: no key leaves half an emoji (a lone
// surrogate) or a letter without its accent in what the model is sent and the history keeps.

import { expect, it } from 'vitest'
import { commonPrefix } from '../../../src/apps/chat/completion.js'
import { EditorBuffer } from '../../../src/apps/chat/editor.js'
import { withoutLastGrapheme } from '../../../src/apps/chat/graphemes.js'
import { fc } from '../../support/property.js'

const THUMB = '👍🏽' // with a skin tone: two code points, four UTF-16 units
const FAMILY = '👨‍👩‍👧' // three people joined by ZWJ: eight UTF-16 units
const ACCENTED = 'e\u0301' // e + combining acute accent
const LONE_SURROGATE = /\p{Cs}/u

const typed = (text: string) => {
  const buffer = new EditorBuffer()
  buffer.insert(text)
  return buffer
}

it('Backspace and Delete remove a whole emoji, skin tone, ZWJ family or accented letter', () => {
  const buffer = typed('ab😀')
  buffer.backspace()
  expect(buffer.text).toBe('ab')
  for (const cluster of [THUMB, FAMILY, ACCENTED]) {
    const after = typed(`x${cluster}`)
    after.backspace()
    expect(after.text).toBe('x')
    const before = typed(`${cluster}x`)
    before.lineStart()
    before.deleteForward()
    expect(before.text).toBe('x')
  }
})

it('Left and Right step over a whole cluster, so typing lands beside it', () => {
  const buffer = typed('ab😀cd')
  buffer.left()
  buffer.left()
  buffer.left()
  buffer.insert('X')
  expect(buffer.text).toBe('abX😀cd')
  const family = typed(`${FAMILY}${THUMB}`)
  family.left()
  family.insert('|')
  family.lineStart()
  family.right()
  family.insert('|')
  expect(family.text).toBe(`${FAMILY}||${THUMB}`)
})

it('word moves and Ctrl-W keep clusters whole and count astral and accented letters as letters', () => {
  const accented = typed(`caf${ACCENTED} bar`)
  accented.lineStart()
  accented.wordRight()
  expect(accented.cursor).toBe(`caf${ACCENTED}`.length)
  accented.wordRight()
  accented.wordLeft()
  expect(accented.cursor).toBe(`caf${ACCENTED} `.length)
  const astral = typed('x 𝒳𝒴')
  astral.deleteWordBack()
  expect(astral.text).toBe('x ')
  const emoji = typed(`go ${THUMB}${FAMILY}`)
  emoji.wordLeft()
  expect(emoji.cursor).toBe(0)
  emoji.wordRight()
  emoji.wordRight()
  expect(emoji.cursor).toBe(emoji.text.length)
})

it('Up and Down keep the screen column and never land inside a cluster', () => {
  const buffer = typed('ab😀cd\nxyz')
  expect(buffer.verticalMove(-1)).toBe(true)
  buffer.insert('X')
  expect(buffer.text).toBe('abX😀cd\nxyz') // column 3 falls inside the two-column emoji
  const wide = typed('中文字\nabcd')
  wide.verticalMove(-1)
  expect(wide.cursor).toBe(2) // four columns: after 中文
  wide.verticalMove(1)
  expect(wide.cursor).toBe('中文字\nabcd'.length)
})

it('the one-line inputs and Tab completion cut whole clusters too', () => {
  expect(withoutLastGrapheme(`find ${FAMILY}`)).toBe('find ')
  expect(withoutLastGrapheme('')).toBe('')
  // Two names sharing only the high surrogate of their first emoji share no whole character.
  expect(commonPrefix(['😀a', '😁b'])).toBe('')
  expect(commonPrefix([`${THUMB}x`, `${THUMB}y`])).toBe(THUMB)
})

const CLUSTERS = ['a', 'Z', ' ', '-', '\n', '中', '𝒳', '😀', THUMB, FAMILY, ACCENTED]
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
const OPERATIONS = [
  'backspace',
  'deleteForward',
  'left',
  'right',
  'wordLeft',
  'wordRight',
  'deleteWordBack',
  'lineStart',
  'lineEnd',
  'killToLineStart',
  'killToLineEnd',
  'up',
  'down',
] as const

it('no sequence of keys splits a cluster or leaves the cursor inside one', () => {
  const step = fc.oneof(
    fc.constantFrom(...CLUSTERS).map((cluster) => ({ insert: cluster })),
    fc.constantFrom(...OPERATIONS).map((operation) => ({ operation })),
  )
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const buffer = new EditorBuffer()
      for (const next of steps) {
        if ('insert' in next) buffer.insert(next.insert)
        else if (next.operation === 'up' || next.operation === 'down')
          buffer.verticalMove(next.operation === 'up' ? -1 : 1)
        else buffer[next.operation]()
        const segments = [...segmenter.segment(buffer.text)]
        expect(buffer.text).not.toMatch(LONE_SURROGATE)
        // The clusters typed never merge, so any cluster not among them is a broken one.
        for (const { segment } of segments) expect(CLUSTERS).toContain(segment)
        const boundaries = [...segments.map((segment) => segment.index), buffer.text.length]
        expect(boundaries).toContain(buffer.cursor)
      }
    }),
  )
})
