// A reader that closes the pipe under `dsh run` (`dsh run … | head -1`): the turn ends as
// on Ctrl-C — recorded as aborted, the session stored, the writer lock released — and the
// exit code is 141 (128 + SIGPIPE), not 0. `dsh sessions list | head` still ends quietly.

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, jsonLines, runCli, spawnCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-pipe-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const SLOW = 'one two three four five six seven eight nine ten eleven twelve thirteen'

it('--json | head -1: the turn is aborted and stored, the lock released, exit 141', async () => {
  const w = await startWorld([{ text: SLOW, delayMs: 150 }, { text: 'resumed fine' }], { strict: true })
  const run = spawnCli(['run', '--json', 'count slowly'], { env: w.env, cwd: w.project })
  await until(() => run.stdout().includes('\n'), 10_000, 'the session line')
  const session = jsonLines(run.stdout().split('\n')[0]!)[0]!
  // The slow reply is this run's: on a busy machine the session line can come well before
  // the request, and a run closed before it asks leaves the slow reply to the resumed run.
  await until(() => w.model.requests.length > 0, 30_000, 'the first model request')
  // What `head -1` does after its line: close the reading end.
  run.child.stdout!.destroy()
  const result = await run.done
  expect(result.code, result.stderr).toBe(141)
  const path = session.transcriptPath as string
  expect(existsSync(path)).toBe(true)
  expect(existsSync(`${path}.lock`)).toBe(false)
  const events = jsonLines(readFileSync(path, 'utf8')).slice(1)
  expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })

  const resumed = await runCli(['run', '-r', session.sessionId as string, 'go on'], {
    env: w.env,
    cwd: w.project,
  })
  expect(resumed.code, resumed.stderr).toBe(0)
  expect(resumed.stdout).toBe('resumed fine\n')
})

it('2>&1 | head -1: a reader gone from stderr ends the turn the same way, exit 141', async () => {
  const wait = 'touch started; while [ ! -e go ]; do sleep 0.05; done'
  const w = await startWorld(
    [{ toolCalls: [{ name: 'bash', arguments: { command: wait } }] }, { text: 'never read' }],
    { strict: true },
  )
  const run = spawnCli(['run', '--permission-mode', 'bypassPermissions', 'wait for go'], {
    env: w.env,
    cwd: w.project,
  })
  await until(() => existsSync(join(w.project, 'started')), 30_000, 'the command to start')
  const sessionId = /^session (\S+) \(new\)$/m.exec(run.stderr())?.[1]
  expect(sessionId, run.stderr()).toBeDefined()
  // The reader of stderr goes away; the command's result line is the next write there.
  run.child.stderr!.destroy()
  writeFileSync(join(w.project, 'go'), '')
  const result = await run.done
  expect(result.code).toBe(141)
  const path = (await runCli(['sessions', 'path', sessionId!], { env: w.env, cwd: w.project })).stdout.trim()
  expect(existsSync(path)).toBe(true)
  expect(existsSync(`${path}.lock`)).toBe(false)
  const events = jsonLines(readFileSync(path, 'utf8')).slice(1)
  expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
})

it('a listing whose reader goes away still ends quietly with 0', async () => {
  const w = await startWorld([])
  for (let i = 0; i < 3; i += 1) {
    expect((await runCli(['run', 'hi'], { env: w.env, cwd: w.project })).code).not.toBe(2)
  }
  const list = spawnCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
  list.child.stdout!.destroy()
  const result = await list.done
  expect(result.code).toBe(0)
  expect(result.stderr).toBe('')
})
