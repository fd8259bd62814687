// What the chat's approval question shows of a tool call: the command, or the file and the
// lines a write or edit would change — sanitized before it is coloured.

import { expect, it } from 'vitest'
import {
  APPROVAL_PLAN_LINES,
  APPROVAL_TEXT_LINES,
  approvalLines,
} from '../../../src/apps/chat/approval-view.js'
import { colorsFor } from '../../../src/apps/shared/render.js'

const plain = colorsFor({ isTTY: false } as NodeJS.WriteStream)
const coloured = colorsFor({ isTTY: true } as NodeJS.WriteStream, {})
const lines = (name: string, input: unknown, colors = plain) =>
  approvalLines(name, input, JSON.stringify(input), colors)

it('bash shows its command, line by line', () => {
  expect(lines('bash', { command: 'npm test\necho done' })).toEqual(['npm test', 'echo done'])
})

it('write shows the file, its line count and the new lines, cut after a few', () => {
  expect(lines('write', { file_path: 'a.txt', content: 'one\ntwo\n' })).toEqual([
    'a.txt (2 lines)',
    '+ one',
    '+ two',
  ])
  expect(lines('write', { file_path: 'empty.txt', content: '' })).toEqual(['empty.txt (0 lines)'])
  const long = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n')
  const shown = lines('write', { file_path: 'long.txt', content: long })
  expect(shown[0]).toBe('long.txt (20 lines)')
  expect(shown).toHaveLength(1 + APPROVAL_TEXT_LINES + 1)
  expect(shown.at(-1)).toBe(`  … +${20 - APPROVAL_TEXT_LINES} lines`)
})

it('edit shows the old lines and the new ones; multi_edit each edit', () => {
  expect(
    lines('edit', { file_path: 'src/a.ts', old_string: 'let x = 1', new_string: 'const x = 1' }),
  ).toEqual(['src/a.ts', '- let x = 1', '+ const x = 1'])
  expect(lines('edit', { file_path: 'b.ts', old_string: 'a', new_string: '', replace_all: true })).toEqual([
    'b.ts (every occurrence)',
    '- a',
  ])
  expect(
    lines('multi_edit', {
      file_path: 'c.ts',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'c', new_string: 'd' },
      ],
    }),
  ).toEqual(['c.ts (2 edits)', '- a', '+ b', '- c', '+ d'])
})

it('colours the sides and sanitizes what the model wrote before colouring it', () => {
  const shown = lines(
    'edit',
    { file_path: 'x\u001b]0;title\u0007.ts', old_string: 'a\u001b[2J', new_string: 'b' },
    coloured,
  )
  expect(shown[0]).not.toContain('\u001b]')
  expect(shown[1]!.startsWith('\u001b[31m- a')).toBe(true)
  expect(shown[1]).not.toContain('\u001b[2J')
  expect(shown[2]).toBe('\u001b[32m+ b\u001b[39m')
})

it('other tools and unparsable arguments show the raw arguments', () => {
  expect(lines('mcp__db__query', { sql: 'select 1' })).toEqual(['{"sql":"select 1"}'])
  expect(approvalLines('edit', undefined, '{not json', plain)).toEqual(['{not json'])
  expect(lines('web_fetch', { url: 'https://example.com/a' })).toEqual(['https://example.com/a'])
})

it('exit_plan_mode shows the plan it asks to carry out, cut after a page', () => {
  expect(lines('exit_plan_mode', { plan: '1. read a.ts\n2. fix the bug\n' })).toEqual([
    'leave plan mode and carry out this plan:',
    '  1. read a.ts',
    '  2. fix the bug',
  ])
  const long = Array.from({ length: APPROVAL_PLAN_LINES + 5 }, (_, i) => `step ${i}`).join('\n')
  expect(lines('exit_plan_mode', { plan: long }).at(-1)).toBe('  … +5 lines')
})
