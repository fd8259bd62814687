// A flood through a real terminal: the screen and the scrollback a reading shows are the
// newest lines, whole and in order, although most lines never reached the screen (they
// would have scrolled out of the scrollback unseen); the transcript has every line.

import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir.js'
import { screenOf, startTerminalTestContext, type TerminalTestContext } from './support.js'

const tempDir = useTempDirs()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

describe('terminal floods', () => {
  it('shows the newest lines of 300,000, in order, and keeps all of them in the transcript', async () => {
    const test = await startTerminalTestContext({
      home: tempDir(),
      terminals: { scrollbackLines: 100, maxReadLines: 50 },
    })
    open.push(test)
    const agent = await test.createAgent('flood', tempDir())
    const reading = await test.call(agent, 'terminal_start', {
      command: 'seq 1 300000; printf "\\033[1mbold\\033[0m end\\n"; echo DO""NE',
      rows: 10,
      ready: '^DONE$',
      timeout_ms: 120_000,
    })
    expect(reading).toMatch(/^started terminal t1 \(ready\)/)
    expect(screenOf(reading).split('\n').slice(0, 9)).toEqual([
      ...Array.from({ length: 7 }, (_, i) => String(299_994 + i)),
      'bold end',
      'DONE',
    ])
    const note =
      /\[new scrollback: 50 lines; \d+ earlier lines not shown; older lines dropped from the scrollback; full output: (\S+)\]\n([\s\S]*?)\n\[screen\]/.exec(
        reading,
      )
    expect(note).not.toBeNull()
    expect(note![2]!.split('\n')).toEqual(Array.from({ length: 50 }, (_, i) => String(299_944 + i)))
    await test.call(agent, 'terminal_kill', { id: 't1' })
    const transcript = readFileSync(note![1]!, 'utf8')
    expect(transcript.startsWith('1\n2\n3\n')).toBe(true)
    expect(transcript).toContain('\n150000\n150001\n')
    expect(transcript.endsWith('299999\n300000\nbold end\nDONE\n')).toBe(true)
  })
})
