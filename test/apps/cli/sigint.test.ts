// Ctrl-C (SIGINT) during `dsh run`: the turn ends `aborted`, the CLI exits 130, and
// the session loads cleanly afterwards, with no crash-repair closers.

import { readFileSync } from 'node:fs'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, jsonLines, makeWorld, runCli, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-sigint-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('SIGINT during a streaming reply aborts the turn, exits 130, and the session stays loadable', async () => {
  const slow = 'one two three four five six seven eight nine ten eleven twelve'
  const model = await startModel([{ text: slow, delayMs: 200 }, { text: 'after the interruption' }], {
    strict: true,
  })
  const w = makeWorld(makeDir(), model.baseUrl)
  const run = spawnCli(['run', '--json', 'count slowly'], { env: w.env, cwd: w.project })
  await until(() => run.stdout().includes('"text-delta"'), 10_000, 'the first streamed text')
  run.child.kill('SIGINT')
  const result = await run.done
  expect(result.code).toBe(130)

  const lines = jsonLines(result.stdout)
  const session = lines[0]!
  expect(lines.at(-1)).toMatchObject({ type: 'result', reason: 'aborted' })
  const path = session.transcriptPath as string
  const before = readFileSync(path, 'utf8')
  const events = jsonLines(before).slice(1)
  expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  expect(events.some((event) => (event.data as { reason?: string }).reason === 'interrupted')).toBe(false)

  const show = await runCli(['sessions', 'show', session.sessionId as string], { env: w.env, cwd: w.project })
  expect(show.code).toBe(0)
  expect(show.stdout).toContain('(turn 1 aborted)')
  // Loading needed no repair: the file is byte for byte what the aborted run left.
  expect(readFileSync(path, 'utf8')).toBe(before)

  const resumed = await runCli(['run', '--resume', session.sessionId as string, 'go on'], {
    env: w.env,
    cwd: w.project,
  })
  expect(resumed.code).toBe(0)
  expect(resumed.stdout).toBe('after the interruption\n')
})
