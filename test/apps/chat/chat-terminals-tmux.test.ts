// A person sees the model's terminals in the chat: while a terminal_* call runs, the last
// lines of that terminal's screen show under it; `/terminals` lists the session's
// terminals and `/terminals t1` prints one screen (without moving the model's reads).

import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-terminals-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('shows a driven terminal live under its call, lists it with /terminals and prints its screen', async () => {
  const model = await startModel([
    // A program that prints three lines and then waits for input.
    {
      toolCalls: [
        {
          name: 'terminal_start',
          arguments: { command: "printf 'alpha-line\\nbeta-line\\ngamma-line\\n'; exec cat" },
        },
      ],
    },
    // A read that waits (bounded) for text that never comes: the call stays running.
    {
      toolCalls: [
        { name: 'terminal_read', arguments: { id: 't1', wait_for: 'never-printed', timeout_ms: 600000 } },
      ],
    },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w, ['--permission-mode', 'bypassPermissions'])
  t.type('drive a terminal')
  t.keys('Enter')
  // The live part under the running terminal_read: the screen's last lines.
  await t.waitFor('│ gamma-line')
  expect(t.screen()).toContain('│ beta-line')
  t.keys('C-c')
  await t.waitFor('(interrupted)')

  t.type('/terminals')
  t.keys('Enter')
  await t.waitFor(/t1\s+running\s+\d+×\d+/)
  t.type('/terminals t1')
  t.keys('Enter')
  await t.waitFor('│ alpha-line')
  t.type('/terminals t9')
  t.keys('Enter')
  await t.waitFor('/terminals: no terminal t9 in this session (t1)')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})
