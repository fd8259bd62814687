// The resume picker's model: typing filters by title and id at once and by the search
// service when it answers (only for what is still typed), Up/Down move within the list,
// Enter picks the selection, Esc cancels, the preview follows the selection.

import { describe, expect, it } from 'vitest'
import { lastExchange } from '../../../src/apps/chat/picker-source.js'
import {
  type PickerRow,
  type PickerSource,
  ResumePicker,
  shortFolder,
} from '../../../src/apps/chat/resume-picker.js'
import type { Colors } from '../../../src/apps/shared/colors.js'
import { until } from '../../support/until.js'

const same = (text: string) => text
const PLAIN: Colors = {
  enabled: false,
  dim: same,
  bold: same,
  red: same,
  green: same,
  yellow: same,
  cyan: same,
  magenta: same,
  italic: same,
  underline: same,
  strike: same,
}

const now = Date.now()
const ROWS: PickerRow[] = [
  {
    id: 'aaaa1111',
    title: 'fix the slug bug',
    folder: '/home/ana/code/shop',
    lastActivity: now - 60_000,
    turns: 3,
    cost: '$0.0012',
  },
  {
    id: 'bbbb2222',
    title: 'explain the repo',
    folder: '/home/ana/code/shop',
    lastActivity: now - 3_600_000,
    turns: 1,
    cost: '$0.0003',
  },
  {
    id: 'cccc3333',
    title: 'write release notes',
    folder: '/home/ana/code/shop',
    lastActivity: now - 86_400_000,
    turns: 2,
    cost: '$0.0020',
  },
]

function open(search: PickerSource['search'] = async () => []) {
  let chosen: string | undefined | null = null
  const previews: string[] = []
  const picker = new ResumePicker(
    {
      rows: ROWS,
      search,
      preview: async (id) => {
        previews.push(id)
        return [`> prompt of ${id}`]
      },
    },
    PLAIN,
    () => {},
    (id) => {
      chosen = id
    },
  )
  const type = (text: string) => {
    for (const char of text) picker.key({ sequence: char, name: char })
  }
  return { picker, type, chosen: () => chosen, previews }
}

describe('the resume picker', () => {
  it('lists every session newest first; Down, Up and Enter pick one', () => {
    const { picker, chosen } = open()
    expect(picker.visible().map((row) => row.id)).toEqual(['aaaa1111', 'bbbb2222', 'cccc3333'])
    picker.key({ name: 'down' })
    picker.key({ name: 'down' })
    picker.key({ name: 'down' }) // stays on the last
    picker.key({ name: 'up' })
    picker.key({ name: 'return' })
    expect(chosen()).toBe('bbbb2222')
  })

  it('Backspace drops a whole emoji from the query, never half of it', () => {
    const { picker } = open()
    picker.key({ sequence: 'fix👍🏽' })
    picker.key({ name: 'backspace' })
    expect(picker.query).toBe('fix')
    expect(picker.visible().map((row) => row.id)).toEqual(['aaaa1111'])
  })

  it('filters by title at once and by the search service when it answers', async () => {
    let answer: (ids: string[]) => void = () => {}
    const { picker, type, chosen } = open(() => new Promise((resolve) => (answer = resolve)))
    type('notes')
    expect(picker.visible().map((row) => row.id)).toEqual(['cccc3333'])
    // The search finds a word of a tool output in the first session too.
    answer(['aaaa1111'])
    await until(() => picker.visible().length === 2)
    expect(picker.visible().map((row) => row.id)).toEqual(['aaaa1111', 'cccc3333'])
    picker.key({ name: 'backspace' })
    // "note": the answer for "notes" no longer counts (a new search was asked).
    expect(picker.visible().map((row) => row.id)).toEqual(['cccc3333'])
    type('zzz')
    picker.key({ name: 'return' })
    expect(chosen()).toBeNull() // nothing to pick
    picker.key({ name: 'backspace' })
    picker.key({ name: 'backspace' })
    picker.key({ name: 'backspace' })
    picker.key({ name: 'return' })
    expect(chosen()).toBe('cccc3333')
  })

  it('Esc cancels; the frame shows the rows, the search line and the preview', async () => {
    const { picker, chosen, type } = open()
    await until(() => picker.frame().lines.some((line) => line.includes('> prompt of aaaa1111')))
    type('slug')
    const frame = picker.frame()
    expect(frame.lines[1]).toBe('  search: slug')
    expect(frame).toMatchObject({ row: 1, column: 14 })
    expect(
      frame.lines.some((line) => line.startsWith('› 1m ') && line.includes('fix the slug bug  …/code/shop')),
    ).toBe(true)
    picker.key({ name: 'escape' })
    expect(chosen()).toBeUndefined()
  })

  it('a row names its folder by its last two parts', () => {
    expect(shortFolder('/home/ana/code/shop')).toBe('…/code/shop')
    expect(shortFolder('/srv')).toBe('/srv')
    expect(shortFolder('C:\\work\\a\\b')).toBe('…/a/b')
  })

  it('a preview is the last prompt and the first line of its answer', () => {
    const events = [
      { seq: 0, type: 'user/message', time: 0, data: { text: 'first question' } },
      { seq: 1, type: 'assistant/message', time: 0, data: { message: { content: 'first answer' } } },
      { seq: 2, type: 'user/message', time: 0, data: { text: 'second question\nmore' } },
      { seq: 3, type: 'assistant/message', time: 0, data: { message: { content: '' } } },
      { seq: 4, type: 'assistant/message', time: 0, data: { message: { content: 'line one\nline two' } } },
    ]
    expect(lastExchange(events)).toEqual(['> second question', '< line one'])
    expect(lastExchange([])).toEqual(['(no exchange yet)'])
  })
})
