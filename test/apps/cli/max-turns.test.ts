// `dsh run --max-turns N`: the turn ends cleanly with its own reason (max-steps) after N
// model steps; a bad count is a usage error.

import { afterEach, beforeAll, expect, it } from 'vitest'
import { type LoopbackModel, startLoopbackModel } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-max-turns-')
let model: LoopbackModel | undefined

beforeAll(assertBuilt)
afterEach(async () => {
  await model?.close()
  model = undefined
})

it('ends the turn with reason max-steps after N model steps and exits 1', async () => {
  const step = { toolCalls: [{ name: 'bash', arguments: { command: 'echo again' } }] }
  model = await startLoopbackModel([step, step, step, step, { text: 'never reached' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const run = await runCli(['run', '--max-turns', '2', '--json', 'loop forever'], {
    env: w.env,
    cwd: w.project,
  })
  expect(run.code).toBe(1)
  const result = jsonLines(run.stdout).find((line) => line.type === 'result')
  expect(result).toMatchObject({ reason: 'max-steps' })
  expect(model.requests).toHaveLength(2)
})

it('rejects a count that is not a whole number of at least 1', async () => {
  const dir = makeDir()
  for (const bad of ['0', '-1', 'two', '1.5']) {
    const run = await runCli(['run', '--max-turns', bad, 'x'], { cwd: dir })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('expected a whole number of at least 1')
  }
})
