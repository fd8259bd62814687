// Readings of the screen as docs/terminal.md describes them, on real pseudo-terminals: rows
// right-trimmed (spaces a program printed too), the cursor within the width, and no
// "older lines dropped" note for a full-screen program in the alternate buffer.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findExecutable } from '../../src/shell/index.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'
import { screenOf, startTerminalTestContext, type TerminalTestContext } from './support.js'

const tempDir = useTempDirs()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

async function start() {
  const test = await startTerminalTestContext({ home: tempDir() })
  open.push(test)
  const agent = await test.createAgent('screen', tempDir())
  return { test, agent }
}

describe('a terminal reading', () => {
  it('right-trims rows, spaces a program printed included', async () => {
    const { test, agent } = await start()
    const started = await test.call(agent, 'terminal_start', {
      command: 'printf "def%50s\\n" ""; printf "ghi   \\n"; exec sleep 30',
      ready: 'ghi',
    })
    expect(screenOf(started)).toBe('def\nghi')
    const terminal = test.ctx.get('terminals')!.get({ agentId: agent.id }, 't1')!
    expect(terminal.tail(2)).toEqual(['def', 'ghi'])
  })

  it('keeps the cursor column within the width when a row is full', async () => {
    const { test, agent } = await start()
    await test.call(agent, 'terminal_start', {
      command: 'printf "%040d" 0; exec sleep 30',
      cols: 40,
      rows: 5,
      ready: '0{40}',
    })
    expect(await test.call(agent, 'terminal_read', { id: 't1' })).toMatch(/· 40x5 · cursor row 1, col 40\]/)
  })

  it('says nothing of dropped lines while a program uses the alternate screen', async () => {
    const { test, agent } = await start()
    const alternate = 'printf "\\033[?1049h\\033[Hfull screen\\n"; exec sleep 30'
    expect(
      await test.call(agent, 'terminal_start', { command: alternate, ready: 'full screen' }),
    ).not.toContain('dropped')
    for (let i = 0; i < 2; i++)
      expect(await test.call(agent, 'terminal_read', { id: 't1' })).not.toContain('dropped')
  })

  itRequires(findExecutable('vim') !== undefined, 'vim')('says nothing of dropped lines in vim', async () => {
    const { test, agent } = await start()
    writeFileSync(join(agent.cwd, 'file.txt'), 'one\ntwo\n')
    await test.call(agent, 'terminal_start', { command: 'bash --norc --noprofile -i', ready: '[$#] $' })
    await test.call(agent, 'terminal_send', { id: 't1', text: 'vim -u NONE -R file.txt\n' })
    await test.call(agent, 'terminal_read', { id: 't1', wait_for: 'file.txt' })
    for (let i = 0; i < 2; i++) {
      const reading = await test.call(agent, 'terminal_read', { id: 't1' })
      expect(reading).not.toContain('dropped')
      expect(screenOf(reading).split('\n')).toContain('~')
    }
    // Back at the shell, its own screen carries on where it was.
    await test.call(agent, 'terminal_send', { id: 't1', text: ':q\n' })
    const back = await test.call(agent, 'terminal_read', { id: 't1', wait_for: '[$#] $' })
    expect(back).not.toContain('dropped')
    expect(screenOf(back)).toMatch(/vim -u NONE -R file.txt\n.*[$#]$/)
  })
})
