// The resume picker in a real terminal (tmux): `dsh -r` with no id lists the folder's
// sessions; typing filters, Enter resumes with the recap; Esc leaves. `/resume` in a chat
// opens the same picker and Esc returns to the prompt.

import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, type CliWorld, makeWorld, runCli } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-picker-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

async function twoSessions(w: CliWorld): Promise<void> {
  for (const prompt of ['fix the slug bug', 'explain the repo']) {
    const result = await runCli(['run', prompt], { env: w.env, cwd: w.project })
    expect(result.code, result.stderr).toBe(0)
  }
}

it('dsh -r: type to filter, Enter resumes with the recap', async () => {
  const model = await startModel([{ text: 'Slug answer.' }, { text: 'Repo answer.' }, { text: 'Again.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  await twoSessions(w)
  const t = await startChat(w, ['-r'])
  await t.waitFor('resume a session')
  await t.waitFor('explain the repo')
  expect(t.screen()).toContain('fix the slug bug')
  // Each row ends with its folder (the last two parts of the path).
  expect(t.screen()).toMatch(/fix the slug bug {2}…\/\S+\/\S+/)
  // The newest is selected, and its last exchange previewed.
  await t.waitFor('< Repo answer.')
  t.type('slug')
  await t.waitFor(/search: slug\s*\n› .*fix the slug bug/)
  expect(t.screen()).not.toMatch(/^\s+.*explain the repo/m)
  t.keys('Enter')
  const recap = await t.waitFor('recap: the last 1 of 1 turns')
  expect(recap).toContain('(resumed)')
  expect(recap).toMatch(/> fix the slug bug\s*\n\s+Slug answer\./)
  t.type('once more')
  t.keys('Enter')
  await t.waitFor('Again.')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})

it('/resume opens the picker and Esc returns to the prompt; Esc in dsh -r leaves', async () => {
  const model = await startModel([
    { text: 'Slug answer.' },
    { text: 'Repo answer.' },
    { text: 'Still here.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  await twoSessions(w)
  let t = await startChat(w)
  t.type('/resume')
  t.keys('Enter')
  await t.waitFor('resume a session')
  t.keys('Escape')
  await until(() => !t.screen().includes('resume a session'), 15_000, 'the picker to close')
  t.type('a new prompt')
  t.keys('Enter')
  await t.waitFor('Still here.')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  t.kill()

  const listed = async () =>
    (
      JSON.parse(
        (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
      ) as unknown[]
    ).length
  const before = await listed()
  t = await startChat(w, ['-r'])
  await t.waitFor('resume a session')
  t.keys('Escape')
  await t.waitFor('dsh-exit=0')
  // Esc after `dsh -r` started nothing: no new session is listed.
  expect(await listed()).toBe(before)
})

it('without a terminal, dsh -r with no id is a usage error; dsh run -r too', async () => {
  const w = makeWorld(makeDir(), 'http://127.0.0.1:9/v1')
  const piped = await runCli(['-r'], { env: w.env, cwd: w.project })
  expect(piped.code).toBe(2)
  expect(piped.stderr.trim()).toBe(
    'dsh: -r without an id opens a picker, which needs a terminal: give a session id (dsh -r ID) or -c',
  )
  const run = await runCli(['run', 'hello', '-r'], { env: w.env, cwd: w.project })
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('--resume needs a session id here')
})
