// Small chat polish: /help wraps at word boundaries, tabs in previews become spaces (not
// a literal \t), and the chat's retry notice counts attempts as `dsh run` does.

import { expect, it } from 'vitest'
import { safe } from '../../../src/apps/chat/chat-host.js'
import { helpText, wrapWords } from '../../../src/apps/chat/commands.js'
import { TranscriptView } from '../../../src/apps/chat/transcript-view.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import { expandTabs } from '../../../src/core/terminal-text.js'
import { describeRetry } from '../../../src/failures/index.js'
import type { AgentOutput } from '../../../src/plugin-api/index.js'

it('/help never cuts a word: every line fits, continuation lines line up', () => {
  const text = helpText(50)
  // A line may pass the width only when it is one word too long to cut.
  for (const line of text.split('\n')) {
    if (line.trim().includes(' ')) expect(line.length, line).toBeLessThanOrEqual(50)
  }
  const words = (s: string) => s.split(/\s+/).filter((w) => w !== '')
  expect(words(text)).toEqual(words(helpText()))
  expect(wrapWords('  /a  one two three four', 12, 6)).toEqual([
    '  /a  one',
    '      two',
    '      three',
    '      four',
  ])
})

it('tabs become spaces to the next tab stop, in previews and everything the chat prints', () => {
  expect(expandTabs('     1\timport x\n    10\ty')).toBe('     1  import x\n    10  y')
  expect(safe('a\tb')).toBe('a       b')
  expect(safe('a\tb')).not.toContain('\\t')
})

it('the chat and dsh run count a retry the same way: the attempt about to be made, of all', () => {
  const lines: string[] = []
  const view = new TranscriptView(
    colorsFor(process.stdout, { NO_COLOR: '1' }),
    () => 100,
    (committed) => lines.push(...committed),
  )
  view.retry({ attempt: 1, delayMs: 2000, reason: 'rate limited' }, 3)
  const run = describeRetry({
    attempt: 1,
    maxAttempts: 4,
    delayMs: 2000,
    failure: { class: 'rate-limit', message: 'rate limited' },
  } as Parameters<typeof describeRetry>[0])
  expect(lines[0]).toContain('(2/4)')
  expect(run).toContain('(2/4)')
})

it('hidden reasoning counts its last line without a newline: a one-line thought is 1 line', () => {
  const lines: string[] = []
  const view = new TranscriptView(
    colorsFor(process.stdout, { NO_COLOR: '1' }),
    () => 100,
    (committed) => lines.push(...committed),
  )
  view.ctrlO() // reasoning hidden
  lines.length = 0
  view.handle({ type: 'reasoning-delta', text: 'Echoing ' } as AgentOutput)
  view.handle({ type: 'reasoning-delta', text: 'the prompt.' } as AgentOutput)
  view.handle({ type: 'text-delta', text: 'Hi' } as AgentOutput)
  expect(lines).toContain('∴ thought (1 line hidden; Ctrl-O shows)')
  view.handle({ type: 'reasoning-delta', text: 'one\ntwo\n' } as AgentOutput)
  view.handle({ type: 'text-delta', text: 'Hi' } as AgentOutput)
  expect(lines).toContain('∴ thought (2 lines hidden; Ctrl-O shows)')
})
