// Chat polish on a real terminal (tmux) against a loopback model: the approval choices
// Claude Code offers (yes / yes and don't ask again, saved as a project allow rule and shown
// by /permissions / no and tell the model what to do instead), and a clean last line with
// the way back (`dsh -r <id>`) after Ctrl-D or /exit.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, useModelWorlds } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-polish-')
const startChat = useChatTerminals()
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const ASK = 'allow? [y/N]'
const bash = (command: string) => ({ name: 'bash', arguments: { command } })

it('2 saves an allow rule for the command prefix: later calls with it run unasked, /permissions lists it', async () => {
  const w = await startWorld([
    { toolCalls: [bash('npm-like build --fast > one.txt')] },
    { text: 'First done.' },
    { toolCalls: [bash('npm-like build --slow > two.txt')] },
    { text: 'Second done.' },
    { toolCalls: [bash('echo three > three.txt')] },
    { text: 'Third done.' },
  ])
  const t = await startChat(w, ['--permission-mode', 'default'])
  t.type('first')
  t.keys('Enter')
  const asked = await t.waitFor(ASK)
  expect(asked).toContain("2 yes, and don't ask again for Bash(npm-like build *) in this project")
  expect(asked).toContain('3 no, and tell the model what to do instead')
  t.keys('2')
  await t.waitFor('First done.')
  const settings = JSON.parse(readFileSync(join(w.project, '.claude/settings.local.json'), 'utf8'))
  expect(settings.permissions.allow).toEqual(['Bash(npm-like build *)'])
  expect(existsSync(join(w.project, 'one.txt'))).toBe(true)
  expect(t.screen()).toMatch(/allowed, and from now on: Bash\(npm-like build \*\)/)

  // The same prefix runs without a question.
  t.type('second')
  t.keys('Enter')
  await t.waitFor('Second done.')
  expect(existsSync(join(w.project, 'two.txt'))).toBe(true)

  t.type('/permissions')
  t.keys('Enter')
  await t.waitFor(/allow\s+Bash\(npm-like build \*\)/)

  // Another prefix is asked again; 1 is a plain yes.
  t.type('third')
  t.keys('Enter')
  await t.waitFor(/echo three[\s\S]*allow\? \[y\/N\]/)
  t.keys('1')
  await t.waitFor('Third done.')
  expect(existsSync(join(w.project, 'three.txt'))).toBe(true)
})

it('3 sends what the user typed back to the model as the tool result; the call does not run', async () => {
  const w = await startWorld([
    { toolCalls: [bash('rm -rf build')] },
    { text: 'Understood, using make clean.' },
  ])
  const t = await startChat(w, ['--permission-mode', 'default'])
  t.type('clean up')
  t.keys('Enter')
  await t.waitFor(ASK)
  t.keys('3')
  await t.waitFor('tell the model what to do instead (Enter sends')
  t.type('use make clean instead')
  t.keys('Enter')
  await t.waitFor('Understood, using make clean.')
  const results = w.model.requests[1]!.messages.filter((message) => message.role === 'tool')
  expect(String(results[0]!.content)).toContain(
    'the user did not allow this call and said what to do instead: use make clean instead',
  )
})

it('Ctrl-D and /exit leave a clean last line with the way back', async () => {
  const w = await startWorld([{ text: 'Hello there.' }])
  const t = await startChat(w)
  t.type('hi')
  t.keys('Enter')
  await t.waitFor('Hello there.')
  t.keys('C-d')
  const screen = await t.waitFor('dsh-exit=0')
  const match = /session (\S+) · resume with `dsh -r (\S+)`\n+dsh-exit=0/.exec(screen)
  expect(match, screen).not.toBeNull()
  expect(match![1]).toBe(match![2])
  // Nothing of the live region (input box, status line) is left below it.
  expect(screen.slice(screen.indexOf('resume with'))).not.toMatch(/ctx|deepseek-flash/)

  const again = await startChat(w, ['-r', match![2]!])
  again.type('/exit')
  again.keys('Enter')
  expect(await again.waitFor('dsh-exit=0')).toContain(`resume with \`dsh -r ${match![2]}\``)
})
