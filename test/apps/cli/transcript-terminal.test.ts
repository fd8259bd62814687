// `dsh sessions show` prints each terminal reading's whole screen (what the model saw),
// cutting only the scrollback before it like any long tool result.

import { describe, expect, it } from 'vitest'
import { formatEvent } from '../../../src/apps/cli/transcript.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import type { SessionEvent } from '../../../src/session/index.js'

const plain = colorsFor({ isTTY: false } as NodeJS.WriteStream)
const result = (content: string) =>
  ({ type: 'tool/result', data: { callId: 'c1', content } }) as unknown as SessionEvent

describe('terminal readings in the transcript', () => {
  it('shows the whole screen and cuts the scrollback', () => {
    const scrollback = Array.from({ length: 20 }, (_, i) => `old ${i}`)
    const screen = Array.from({ length: 12 }, (_, i) => `row ${i + 1}`)
    const content = [
      '[terminal t1: running · bash · 80x24 · cursor row 12, col 3]',
      '[new scrollback: 20 lines]',
      ...scrollback,
      '[screen]',
      ...screen,
    ].join('\n')
    const text = formatEvent(result(content), plain)!
    for (const row of screen) expect(text).toContain(`    ${row}`)
    expect(text).toContain('old 3')
    expect(text).not.toContain('old 4')
    expect(text).toContain('… 16 more lines')
  })

  it('keeps the usual preview for other results', () => {
    const text = formatEvent(result(Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n')), plain)!
    expect(text).toContain('line 5')
    expect(text).not.toContain('line 6')
  })
})
