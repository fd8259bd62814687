// The terminal closed under a running chat (its window, tmux or ssh gone): dsh ends with
// its own exit code, not Node 20's abort in the terminal reset at exit (ResetStdio's
// assertion on a hung-up terminal: SIGABRT, exit 134). src/apps/shared/hung-up-terminal.ts.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { startTerminal } from '../../support/tmux.js'
import { until } from '../../support/until.js'
import { assertBuilt, CLI, makeWorld, runCli } from '../cli/cli.js'
import { READY } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-hangup-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('exits with its own code, not an abort, when its terminal hangs up', async () => {
  const model = await startModel([{ text: 'Answered before the window closed.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const stderr = join(w.home, 'chat-stderr.txt')
  const exit = join(w.home, 'chat-exit.txt')
  // The shell in the pane outlives the hangup (it ignores SIGHUP; Node resets that for dsh)
  // to write dsh's exit status; dsh's stderr goes to a file, as the terminal is gone.
  const command = `trap '' HUP; ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} 2> ${JSON.stringify(stderr)}; echo $? > ${JSON.stringify(exit)}`
  const terminal = await startTerminal({ cwd: w.project, env: w.env, command })
  try {
    await terminal.waitFor(READY)
    terminal.type('hello')
    terminal.keys('Enter')
    await terminal.waitFor('Answered before the window closed.')
  } finally {
    // The server's end of every pane closes: the chat's terminal hangs up.
    terminal.kill()
  }
  await until(() => existsSync(exit) && readFileSync(exit, 'utf8').endsWith('\n'), 30_000, 'the chat to exit')
  const code = Number(readFileSync(exit, 'utf8'))
  const printed = readFileSync(stderr, 'utf8')
  expect(printed).not.toContain('Assertion failed')
  expect(code, printed).not.toBe(134)
  // SIGHUP (129), or the end of its input first (0): either way dsh's own exit.
  expect([0, 129], printed).toContain(code)
  // The turn before the hangup is stored.
  const listed = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
  expect(listed.code).toBe(0)
  expect(JSON.parse(listed.stdout)).toHaveLength(1)
})
