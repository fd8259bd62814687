// The chat's pure pieces: the editor buffer, streamed markdown, completion, command
// suggestions, tool summaries, attachments, history and the screen's live region.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { attachFiles } from '../../../src/apps/chat/attachments.js'
import { closestCommand } from '../../../src/apps/chat/commands.js'
import { complete } from '../../../src/apps/chat/completion.js'
import { EditorBuffer } from '../../../src/apps/chat/editor.js'
import { PromptHistory } from '../../../src/apps/chat/history.js'
import { MarkdownStream } from '../../../src/apps/chat/markdown.js'
import { Screen } from '../../../src/apps/chat/screen.js'
import { tokensFrom } from '../../../src/apps/chat/status-line.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import { summarizeToolResult } from '../../../src/apps/shared/tool-summary.js'
import { resolvePriceTable } from '../../../src/usage/index.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-chat-units-')
const plain = colorsFor({ isTTY: false } as NodeJS.WriteStream)

it('edits like a shell line: words, kill, lines, and long pastes as placeholders', () => {
  const buffer = new EditorBuffer()
  buffer.insert('hello brave world')
  buffer.wordLeft()
  buffer.deleteWordBack()
  expect(buffer.text).toBe('hello world')
  buffer.lineEnd()
  buffer.insert('\nsecond line')
  expect(buffer.verticalMove(-1)).toBe(true)
  buffer.wordLeft()
  buffer.killToLineEnd()
  expect(buffer.text).toBe('hello \nsecond line')
  buffer.clear()
  buffer.paste('a\r\nb\nc\nd')
  expect(buffer.text).toBe('[pasted 4 lines]')
  expect(buffer.expanded()).toBe('a\nb\nc\nd')
  buffer.backspace()
  expect(buffer.text).toBe('') // a placeholder goes in one backspace
  buffer.paste('x\ny')
  expect(buffer.text).toBe('x\ny')
})

it('renders markdown line by line as it streams, and the same however the text is split', () => {
  const text =
    '## Title\n\nSome **bold** and `code`.\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 22 |\n\n```js\nlet x = 1\n```\nend'
  const render = (pieces: string[]) => {
    const stream = new MarkdownStream(plain, () => 80)
    const out: string[] = []
    for (const piece of pieces) out.push(...stream.push(piece))
    return [...out, ...stream.finish()]
  }
  const whole = render([text])
  expect(whole).toEqual([
    'Title',
    '',
    'Some bold and code.',
    '',
    '1. one',
    '2. two',
    '',
    'a   │ b  ',
    '────┼────',
    '1   │ 22 ',
    '',
    '  js',
    '  let x = 1',
    'end',
  ])
  expect(render(text.split(''))).toEqual(whole)
  // The unfinished line is previewed, not committed.
  const stream = new MarkdownStream(plain, () => 80)
  expect(stream.push('**half')).toEqual([])
  expect(stream.preview()).toEqual(['**half'])
})

it('wraps long markdown lines to the width, with hanging indents for list items', () => {
  const stream = new MarkdownStream(plain, () => 20)
  const lines = stream.push('- alpha beta gamma delta epsilon\n')
  expect(lines).toEqual(['• alpha beta gamma ', '  delta epsilon'])
})

it('escapes control sequences inside markdown', () => {
  const stream = new MarkdownStream(plain, () => 80)
  expect(stream.push('a \u001b]52;c;aGk=\u0007 b\n')).toEqual(['a \\e]52;c;aGk=\\x07 b'])
})

it('completes commands and paths; suggests the closest command', () => {
  const dir = makeDir()
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'main.ts'), '')
  writeFileSync(join(dir, 'README.md'), '')
  expect(complete('/he', 3, ['help', 'hooks'], dir).candidates).toEqual(['/help '])
  expect(complete('look at sr', 10, [], dir)).toEqual({ start: 8, candidates: ['src/'] })
  expect(complete('read @src/ma', 12, [], dir)).toEqual({ start: 6, candidates: ['src/main.ts '] })
  expect(closestCommand('hepl')).toBe('help')
  expect(closestCommand('res')).toBe('resume')
  expect(closestCommand('zzzzzzzz')).toBeUndefined()
})

it('summarizes a failed bash result with its exit code and stderr first', () => {
  const content = 'partial\n[stderr]\nfatal: bad\nhint: more\n[exit code: 2]'
  expect(summarizeToolResult(content, false, 4)).toEqual({
    failed: true,
    status: 'exit 2',
    lines: ['fatal: bad', 'hint: more', 'partial'],
    hidden: 0,
  })
  expect(summarizeToolResult('a\nb\nc\nd\ne\nf', false, 4)).toMatchObject({ failed: false, hidden: 2 })
  expect(summarizeToolResult('', false, 4).lines).toEqual(['(no output)'])
})

it('attaches @files that exist and leaves other @words alone', () => {
  const dir = makeDir()
  writeFileSync(join(dir, 'notes.txt'), 'the notes')
  const result = attachFiles('compare @notes.txt with @nobody', dir)
  expect(result.attached).toEqual(['notes.txt'])
  expect(result.prompt).toBe('compare @notes.txt with @nobody\n\n<file path="notes.txt">\nthe notes\n</file>')
})

it('keeps prompt history per project folder across instances, skipping torn lines', () => {
  const home = makeDir()
  const first = new PromptHistory(home, '/project/a')
  first.add('one').persist()
  first.add('one').persist()
  first.add('two\nlines').persist()
  // A prompt whose turn a hook blocked is never persisted: it stays for Up/Down in this chat only.
  first.add('blocked secret')
  expect(first.entries.at(-1)).toBe('blocked secret')
  writeFileSync(first.file, `${readText(first.file)}{torn\n`)
  expect(new PromptHistory(home, '/project/a').entries).toEqual(['one', 'two\nlines'])
  expect(new PromptHistory(home, '/project/b').entries).toEqual([])
  expect(new PromptHistory(home, '/project/a').search('lin')).toEqual({ index: 1, entry: 'two\nlines' })
})

it('counts session tokens from the logged usage', () => {
  const usage = (promptTokens: number, completionTokens: number) => ({
    seq: 0,
    type: 'assistant/message',
    time: 0,
    data: {
      message: { content: '' },
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
    },
  })
  expect(tokensFrom([usage(100, 20), usage(150, 30)])).toMatchObject({ total: 300, context: 180 })
  // Priced by the one price table: 250 uncached prompt tokens and 50 completion tokens at $1 per million.
  const table = resolvePriceTable({ models: { m: { cacheHit: 1, cacheMiss: 1, output: 1 } } })
  const model = {
    seq: 0,
    type: 'request/config',
    time: 0,
    data: { model: 'm', effort: 'high', system: '', tools: [] },
  }
  const priced = tokensFrom([model, usage(100, 20), usage(150, 30)], table)
  expect(priced.cost).toBeCloseTo(300 / 1_000_000, 12)
  expect(priced.currency).toBe('USD')
})

it('redraws only the live region: the cost of a refresh does not depend on what scrolled by', () => {
  let written = ''
  const out = { write: (text: string) => (written += text), columns: 40, rows: 20 }
  const screen = new Screen(out, () => ({ lines: ['> typed', 'status'], cursor: { row: 0, column: 7 } }))
  screen.commit(Array.from({ length: 500 }, (_, i) => `line ${i}`))
  screen.refresh()
  written = ''
  screen.refresh()
  // Up to the input row, erase below, the two live lines, back to the cursor.
  expect(written).toBe('\r\u001b[J> typed\r\nstatus\u001b[1A\r\u001b[7C')
})

it('after the terminal narrows, erases the live region as the terminal rewrapped it', () => {
  let written = ''
  const out = { write: (text: string) => (written += text), columns: 120, rows: 40 }
  const typed = `> ${'x'.repeat(88)}` // 90 cells: one row at 120 columns, two at 50
  const screen = new Screen(out, () => ({
    lines: ['spinner', typed, 'status'],
    cursor: { row: 1, column: 90 },
  }))
  screen.refresh()
  written = ''
  out.columns = 50
  screen.refresh()
  // Up past the spinner and the input's first row (the cursor sits on its second), then erase.
  expect(written.startsWith('\u001b[2A\r\u001b[J')).toBe(true)
  // Same width again: the rows drawn at 50 columns.
  written = ''
  screen.refresh()
  expect(written.startsWith('\u001b[2A\r\u001b[J')).toBe(true)
})

function readText(path: string): string {
  return readFileSync(path, 'utf8')
}
