// `dsh run --max-turns N` and `--max-cost X`: the turn ends cleanly with its own reason (max-steps,
// max-cost) after N model steps or once its estimated cost reaches X; bad values are usage errors.

import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-max-turns-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('ends the turn with reason max-steps after N model steps and exits 1', async () => {
  const step = { toolCalls: [{ name: 'bash', arguments: { command: 'echo again' } }] }
  const model = await startModel([step, step, step, step, { text: 'never reached' }])
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

// `dsh run --max-cost X`: before each model request the run's estimated cost (from the
// session logs, sub-agents included) is checked; at the limit the turn ends max-cost.
const PRICED = 'pricing:\n  models:\n    deepseek-flash: { cacheHit: 1, cacheMiss: 1, output: 1 }\n'
/** A step that costs $0.10 at PRICED: 100,000 uncached prompt tokens at $1 per million. */
const COSTLY = { promptTokens: 100_000, cachedTokens: 0, cacheMissTokens: 100_000, completionTokens: 0 }

it('ends the turn with reason max-cost once the estimated cost reaches --max-cost, logged and printed', async () => {
  const step = { toolCalls: [{ name: 'bash', arguments: { command: 'echo again' } }], usage: COSTLY }
  const model = await startModel([step, step, step, step, step, { text: 'never reached' }])
  const w = makeWorld(makeDir(), model.baseUrl, PRICED)
  const run = await runCli(['run', '--max-cost', '0.25', 'spend'], { env: w.env, cwd: w.project })
  expect(run.code).toBe(1)
  // $0.10, $0.20 still under; the fourth request would start at $0.30.
  expect(model.requests).toHaveLength(3)
  expect(run.stderr).toContain(
    "turn ended: max-cost — the run's estimated cost ~$0.3000 reached --max-cost ~$0.2500",
  )
  expect(run.stdout).toBe('')
  const id = /session (\S+) \(new\)/.exec(run.stderr)![1]!
  const shown = jsonLines((await runCli(['sessions', 'show', '--json', id], { env: w.env })).stdout)
  expect(shown.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: 'max-cost' } })
  const listed = JSON.parse(
    (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
  )
  expect(listed).toEqual([expect.objectContaining({ id, outcome: 'max-cost' })])
})

it("counts a sub-agent's spending toward --max-cost", async () => {
  const model = await startModel([
    {
      toolCalls: [{ name: 'subagent', arguments: { description: 'd', prompt: 'spend a lot' } }],
      usage: COSTLY,
    },
    { text: 'the child spent', usage: { ...COSTLY, promptTokens: 300_000, cacheMissTokens: 300_000 } },
    { text: 'never reached' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl, PRICED)
  const run = await runCli(['run', '--json', '--max-cost', '0.25', 'delegate'], {
    env: w.env,
    cwd: w.project,
  })
  expect(run.code).toBe(1)
  expect(model.requests).toHaveLength(2)
  const result = jsonLines(run.stdout).find((line) => line.type === 'result')
  expect(result).toMatchObject({ reason: 'max-cost', error: expect.stringContaining('~$0.4000') })
})

it('refuses --max-cost for a model without a price, and an amount that is not positive', async () => {
  const w = makeWorld(makeDir(), 'http://127.0.0.1:9')
  const unpriced = await runCli(['run', '-m', 'my-local-model', '--max-cost', '1', 'x'], {
    env: w.env,
    cwd: w.project,
  })
  expect(unpriced.code).toBe(2)
  expect(unpriced.stderr).toBe(
    'dsh: --max-cost needs a price for the model my-local-model: add it to pricing.models in the config\n',
  )
  for (const bad of ['0', '-1', 'lots', '$1']) {
    const run = await runCli(['run', '--max-cost', bad, 'x'], { cwd: w.project, env: w.env })
    expect(run.code, bad).toBe(2)
    expect(run.stderr).toContain('expected a positive amount like 0.50')
  }
})
