// The chat's `/resume` under tmux: the list shows a renamed title, an id prefix of 6+
// characters resumes (with the recap), an ambiguous one is one line naming the candidates.

import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld, runCli } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-ids-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('/resume lists renamed titles and takes a unique id prefix; an ambiguous one is one line', async () => {
  const model = await startModel([{ text: 'About walnuts.' }, { text: 'About pecans.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  for (const [id, prompt] of [
    ['nutnut-walnut', 'tell me about walnuts'],
    ['nutnut-pecan', 'tell me about pecans'],
  ]) {
    const run = await runCli(['run', '--session-id', id!, prompt!], { env: w.env, cwd: w.project })
    expect(run.code, run.stderr).toBe(0)
  }
  const renamed = await runCli(['sessions', 'rename', 'nutnut-w', 'Walnut research'], {
    env: w.env,
    cwd: w.project,
  })
  expect(renamed.code, renamed.stderr).toBe(0)

  const t = await startChat(w)
  t.type('/sessions')
  t.keys('Enter')
  await t.waitFor(/nutnut-walnut .*Walnut research/)
  t.type('/resume nutnut')
  t.keys('Enter')
  await t.waitFor(
    'session id prefix "nutnut" is ambiguous: nutnut-pecan, nutnut-walnut (give more characters)',
  )
  t.type('/resume nutnut-w')
  t.keys('Enter')
  await t.waitFor('session nutnut-walnut (resumed)')
  await t.waitFor('About walnuts.')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})

it('/rename gives the live session a title that /session, /sessions and sessions list show', async () => {
  const model = await startModel([{ text: 'Hazelnuts grow on shrubs.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w, ['--session-id', 'nutnut-hazel'])
  t.type('/rename')
  t.keys('Enter')
  await t.waitFor('title  (none yet: the first prompt becomes it)')
  t.type('tell me about hazelnuts')
  t.keys('Enter')
  await t.waitFor('Hazelnuts grow on shrubs.')
  t.type('/rename   Hazelnut   notes  ')
  t.keys('Enter')
  await t.waitFor('renamed to Hazelnut notes')
  t.type('/session')
  t.keys('Enter')
  await t.waitFor('title    Hazelnut notes')
  t.type('/rename')
  t.keys('Enter')
  await t.waitFor('title  Hazelnut notes')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  const list = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(list.stdout).toMatch(/nutnut-hazel .*Hazelnut notes/)
})

it('/rename is stored at once: /sessions and sessions list in another shell show it before the next turn', async () => {
  const model = await startModel([{ text: 'Filberts are hazelnuts.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w, ['--session-id', 'nutnut-filbert'])
  t.type('tell me about filberts')
  t.keys('Enter')
  await t.waitFor('Filberts are hazelnuts.')
  t.type('/rename Filbert facts')
  t.keys('Enter')
  await t.waitFor('renamed to Filbert facts')
  t.type('/sessions')
  t.keys('Enter')
  await t.waitFor(/nutnut-filbert .*Filbert facts/)
  // The chat is still running: the title is in the log, not waiting for the next turn or exit.
  const list = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(list.stdout).toMatch(/nutnut-filbert .*Filbert facts/)
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})
