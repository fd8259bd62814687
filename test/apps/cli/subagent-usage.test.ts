// `dsh run` counts what its sub-agents spent (and theirs) on a line of its own, and in the
// --json result as `subagentUsage`: the turn's own usage line stays the parent's, and
// --max-cost already counted them.

import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-subagent-usage-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

const PRICED = 'pricing:\n  models:\n    deepseek-flash: { cacheHit: 1, cacheMiss: 1, output: 1 }\n'
/** A step that costs `dollars` at PRICED: uncached prompt tokens at $1 per million. */
const costing = (dollars: number) => {
  const tokens = Math.round(dollars * 1_000_000)
  return { promptTokens: tokens, cachedTokens: 0, cacheMissTokens: tokens, completionTokens: 0 }
}
const delegate = (prompt: string, dollars: number) => ({
  toolCalls: [{ name: 'subagent', arguments: { description: prompt, prompt } }],
  usage: costing(dollars),
})

function script() {
  // parent → child → grandchild: $0.20 the parent's, $0.30 below it.
  return [
    delegate('child task', 0.1),
    delegate('grandchild task', 0.2),
    { text: 'deep', usage: costing(0.05) },
    { text: 'mid', usage: costing(0.05) },
    { text: 'top', usage: costing(0.1) },
  ]
}

it('prints the sub-agents usage on its own line, the turn line staying the parent’s', async () => {
  const model = await startModel(script())
  const w = makeWorld(makeDir(), model.baseUrl, PRICED)
  const run = await runCli(['run', 'delegate'], { env: w.env, cwd: w.project })
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toBe('top\n')
  const lines = run.stderr.split('\n')
  expect(lines.find((line) => line.startsWith('usage '))).toMatch(/ · ~\$0\.2000$/)
  expect(lines.find((line) => line.startsWith('sub-agents '))).toMatch(/^sub-agents \(2\) .* · ~\$0\.3000$/)
})

it('gives the --json result subagents and subagentUsage, and leaves them out when none ran', async () => {
  const model = await startModel(script())
  const w = makeWorld(makeDir(), model.baseUrl, PRICED)
  const run = await runCli(['run', '--json', 'delegate'], { env: w.env, cwd: w.project })
  expect(run.code, run.stderr).toBe(0)
  const result = jsonLines(run.stdout).find((line) => line.type === 'result')!
  expect(result.usage).toMatchObject({ cost: expect.closeTo(0.2, 9) })
  expect(result).toMatchObject({ subagents: 2, subagentUsage: { inputTokens: 300_000 } })
  expect((result.subagentUsage as { cost: number }).cost).toBeCloseTo(0.3, 9)

  const alone = await startModel([{ text: 'no help needed', usage: costing(0.1) }])
  const w2 = makeWorld(makeDir(), alone.baseUrl, PRICED)
  const plain = await runCli(['run', '--json', 'alone'], { env: w2.env, cwd: w2.project })
  const only = jsonLines(plain.stdout).find((line) => line.type === 'result')!
  expect(only).not.toHaveProperty('subagentUsage')
  expect(only).not.toHaveProperty('subagents')
})
