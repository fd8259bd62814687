// After `dsh -r ID` the chat shows a recap (the last prompt, its answer, the files it
// changed) and which settings it restored (model, effort, mode); `/fork 2` continues in a
// session whose history ends after turn 2. A real pseudo-terminal (tmux), a loopback model.

import { beforeAll, expect, it } from 'vitest'
import type { LoopbackModel } from '../../support/loopback-model.js'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-resume-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

function userMessages(model: LoopbackModel, index: number): string[] {
  return model.requests[index]!.messages.filter((m) => m.role === 'user').map((m) => m.content as string)
}

it('dsh -r shows the recap with files changed and the restored settings; /fork 2 keeps turns 1-2', async () => {
  const model = await startModel([
    { text: 'Alpha answer.' },
    { toolCalls: [{ name: 'write', arguments: { file_path: 'notes.txt', content: 'beta\n' } }] },
    { text: 'Wrote the notes.' },
    { text: 'Gamma answer.' },
    { text: 'Delta in the fork.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  let t = await startChat(w, ['-m', 'model-x', '--effort', 'low'])
  t.type('/permissions acceptEdits')
  t.keys('Enter')
  await t.waitFor('acceptEdits')
  for (const [prompt, answer] of [
    ['alpha', 'Alpha answer.'],
    ['beta', 'Wrote the notes.'],
  ]) {
    t.type(prompt)
    t.keys('Enter')
    await t.waitFor(answer)
  }
  t.keys('C-d')
  const bye = await t.waitFor('dsh-exit=0')
  const id = /resume with `dsh -r (\S+)`/.exec(bye)![1]!
  t.kill()

  t = await startChat(w, ['-r', id])
  const recap = await t.waitFor('restored: ')
  expect(recap).toContain(`session ${id} (resumed)`)
  expect(recap).toContain('recap: the last 2 of 2 turns')
  expect(recap).toMatch(/> beta\s*\n\s+Wrote the notes\.\s*\n\s+files changed: notes\.txt/)
  expect(recap).toContain('restored: model model-x, effort low, mode acceptEdits')
  t.type('gamma')
  t.keys('Enter')
  await t.waitFor('Gamma answer.')
  expect(model.requests[3]).toMatchObject({ model: 'model-x', reasoning_effort: 'low' })

  t.type('/fork 2')
  t.keys('Enter')
  const forked = await t.waitFor(`(forked from ${id} at turn 2)`)
  expect(forked).toContain('restored: model model-x, effort low, mode acceptEdits')
  t.type('delta')
  t.keys('Enter')
  await t.waitFor('Delta in the fork.')
  expect(userMessages(model, 4)).toEqual(['alpha', 'beta', 'delta'])
  expect(model.requests[4]).toMatchObject({ model: 'model-x', reasoning_effort: 'low' })
  t.type('/fork 9')
  t.keys('Enter')
  await t.waitFor('/fork <turn>: a turn from 1 to 3')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})
