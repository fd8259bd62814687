// `dsh chat` without a terminal: piped prompts run one turn per line, in order, each to
// completion; the exit code says whether every turn completed. Bare `dsh` options and help.

import { statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { pngImage, writeImage } from '../../support/images.js'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld, runCli } from '../cli/cli.js'

const makeDir = useTempDirs('dsh-chat-piped-')
const startModel = useLoopbackModels()
beforeAll(assertBuilt)

it('runs one turn per piped line, in order, and exits 0 when all completed', async () => {
  const model = await startModel([
    { text: 'answer one', delayMs: 20 },
    { text: 'answer two', delayMs: 20 },
    { text: 'answer three' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const result = await runCli(['chat'], { env: w.env, cwd: w.project, input: 'first\n\nsecond\nthird\n' })
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  expect(result.stdout).toMatch(
    /> first\nanswer one\n[\s\S]*> second\nanswer two\n[\s\S]*> third\nanswer three/,
  )
  expect(
    model.requests.map((request) => request.messages.filter((m) => m.role === 'user').at(-1)?.content),
  ).toEqual(['first', 'second', 'third'])
})

it('exits 1 when a piped turn does not complete, and still runs the later lines', async () => {
  const model = await startModel([{ status: 400, message: 'bad request' }, { text: 'fine' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const result = await runCli(['-m', 'some-model'], {
    env: w.env,
    cwd: w.project,
    input: 'broken\nworks\n',
  })
  expect(result.code).toBe(1)
  expect(result.stdout).toContain('turn ended: error')
  expect(result.stdout).toContain('fine')
  expect(model.requests[1]!.model).toBe('some-model')
})

it('says which image a piped line attached, as the terminal chat does, and sends it', async () => {
  const model = await startModel([{ text: 'a blue box' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  writeImage(w.project, 'shot.png', await pngImage(1280, 800))
  const kb = Math.round(statSync(join(w.project, 'shot.png')).size / 1024)
  const result = await runCli(['chat'], { env: w.env, cwd: w.project, input: 'look @shot.png\n' })
  expect(result.code).toBe(0)
  expect(result.stdout).toMatch(
    new RegExp(
      `> look @shot\\.png\\n  attached \\[image shot\\.png 1280×800 ${kb} (KB|B)\\]\\n[\\s\\S]*a blue box`,
    ),
  )
  const sent = model.requests[0]!.messages.at(-1)!.content
  expect(Array.isArray(sent) && sent.some((part) => part.type === 'image_url')).toBe(true)
})

it('escapes control sequences the model sends before they reach the output', async () => {
  const model = await startModel([{ text: 'title \u001b]0;owned\u0007 clip \u001b]52;c;aGk=\u0007 end' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const result = await runCli(['chat'], { env: w.env, cwd: w.project, input: 'hi\n' })
  expect(result.stdout).toContain('title \\e]0;owned\\x07 clip \\e]52;c;aGk=\\x07 end')
  expect(result.stdout).not.toContain('\u001b]')
})

it('`dsh help [command]` and --help name the environment, the config file and the exit codes', async () => {
  const dir = makeDir()
  const help = await runCli(['help'], { cwd: dir })
  expect(help.code).toBe(0)
  for (const text of ['DEEPSEEK_API_KEY', 'DSH_HOME', 'NO_COLOR', 'config.yaml', 'Exit codes', '130']) {
    expect(help.stdout).toContain(text)
  }
  const runHelp = await runCli(['help', 'run'], { cwd: dir })
  expect(runHelp.stdout).toContain('Usage: dsh run')
  const flagHelp = await runCli(['--help'], { cwd: dir })
  expect(flagHelp.stdout).toContain('Exit codes')
  const bad = await runCli(['--no-such-flag'], { cwd: dir })
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('--no-such-flag')
})
