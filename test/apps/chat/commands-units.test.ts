// The pieces behind `# note`, bare `/rewind` and Shift-Tab: which inputs are notes, which file
// a note goes to, which turns changed files, and which mode comes next.

import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { isMemoryNote, noteTarget } from '../../../src/apps/chat/commands/memory.js'
import { turnsThatChangedFiles } from '../../../src/apps/chat/commands/model.js'
import { nextMode } from '../../../src/apps/chat/commands/permissions.js'
import { isCommandLine } from '../../../src/apps/chat/commands.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-chat-commands-units-')

it('treats a one-line # input as a note, never a heading or a multi-line prompt', () => {
  expect(isMemoryNote('# use pnpm')).toBe(true)
  expect(isMemoryNote('#use pnpm')).toBe(true)
  expect(isMemoryNote('#~ short answers')).toBe(true)
  expect(isMemoryNote('  # indented note  ')).toBe(true)
  expect(isMemoryNote('## Heading')).toBe(false)
  expect(isMemoryNote('#')).toBe(false)
  expect(isMemoryNote('# title\nbody')).toBe(false)
  expect(isMemoryNote('fix issue #12')).toBe(false)
  expect(isCommandLine('# note')).toBe(true)
  expect(isCommandLine('/status')).toBe(true)
  expect(isCommandLine('hello')).toBe(false)
})

it('takes the ~ of #~ as the user-file marker, never as the note: #~ alone is a prompt, as # alone is', () => {
  for (const bare of ['#~', '#~   ', '  #~  ', '#', '#   ']) {
    expect(isMemoryNote(bare)).toBe(false)
    expect(isCommandLine(bare)).toBe(false)
  }
  expect(isMemoryNote('#~x')).toBe(true)
  expect(isMemoryNote('#~ ~/bin is on PATH')).toBe(true)
  expect(isMemoryNote('# ~ is home')).toBe(true)
})

it("sends a note to the project root's AGENTS.md, its CLAUDE.md when that is the loaded one, or the user's file", () => {
  const root = realpathSync(makeDir())
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(join(project, '.git'), { recursive: true })
  mkdirSync(join(project, 'src'))
  expect(noteTarget('# x', join(project, 'src'), home)).toEqual({
    path: join(project, 'AGENTS.md'),
    scope: 'project',
  })
  writeFileSync(join(project, 'CLAUDE.md'), 'rules\n')
  expect(noteTarget('# x', project, home).path).toBe(join(project, 'CLAUDE.md'))
  writeFileSync(join(project, 'AGENTS.md'), 'rules\n')
  expect(noteTarget('# x', project, home).path).toBe(join(project, 'AGENTS.md'))
  expect(noteTarget('#~ x', project, home)).toEqual({ path: join(home, 'AGENTS.md'), scope: 'user' })
})

it('lists only the turns whose file tools changed files, with their prompt and paths', () => {
  let seq = 0
  const event = (type: string, data: unknown) => ({ type, data, seq: ++seq }) as unknown as SessionEvent
  const change = (turn: number, path: string) =>
    event('file/change', { turn, callId: 'c', tool: 'edit', path, before: null, after: 'h' })
  const events = [
    event('turn/start', { turn: 1 }),
    event('user/message', { text: 'hook context', origin: 'hook' }),
    event('user/message', { text: 'create notes\nwith detail' }),
    change(1, '/p/a.txt'),
    change(1, '/p/a.txt'),
    change(1, '/p/b.txt'),
    event('turn/start', { turn: 2 }),
    event('user/message', { text: 'just talk' }),
    event('turn/start', { turn: 3 }),
    event('user/message', { text: 'edit c' }),
    change(3, '/p/c.txt'),
  ]
  expect(turnsThatChangedFiles(events)).toEqual([
    { turn: 1, prompt: 'create notes\nwith detail', paths: ['/p/a.txt', '/p/b.txt'] },
    { turn: 3, prompt: 'edit c', paths: ['/p/c.txt'] },
  ])
})

it('Shift-Tab goes through the modes in /permissions order; bypassPermissions only when allowed', () => {
  const cycle = (start: Parameters<typeof nextMode>[0], allowed: boolean, steps: number) => {
    const modes = [start]
    for (let i = 0; i < steps; i++) modes.push(nextMode(modes.at(-1)!, allowed))
    return modes
  }
  expect(cycle('auto', false, 4)).toEqual(['auto', 'default', 'acceptEdits', 'plan', 'auto'])
  expect(cycle('auto', true, 5)).toEqual([
    'auto',
    'default',
    'acceptEdits',
    'plan',
    'bypassPermissions',
    'auto',
  ])
  // Set by /permissions (or a resumed log) without being allowed in the cycle: the next key leaves it.
  expect(nextMode('bypassPermissions', false)).toBe('auto')
})
