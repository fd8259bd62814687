// An interrupted turn was still billed: when the stream is cut before the server reports
// usage, the step records an estimate, marked `estimated`, and the result says so.

import { readFileSync } from 'node:fs'
import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, jsonLines, runCli, spawnCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-usage-cut-')
const startWorld = useModelWorlds(makeDir)
beforeAll(assertBuilt)

const SLOW = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen'

it('Ctrl-C mid-stream records an estimated, marked usage instead of nothing', async () => {
  const w = await startWorld([{ text: SLOW, delayMs: 150 }, { text: 'done' }])
  const run = spawnCli(['run', '--json', 'count slowly'], { env: w.env, cwd: w.project })
  await until(() => run.stdout().includes('"text-delta"'), 10_000, 'the first streamed text')
  run.child.kill('SIGINT')
  const result = await run.done
  expect(result.code).toBe(130)
  const lines = jsonLines(result.stdout)
  expect(lines.at(-1)).toMatchObject({ type: 'result', reason: 'aborted', usageEstimated: true })
  expect((lines.at(-1)!.usage as { inputTokens: number }).inputTokens).toBeGreaterThan(0)
  const events = jsonLines(readFileSync(lines[0]!.transcriptPath as string, 'utf8')).slice(1)
  const usage = (events.find((event) => event.type === 'assistant/message')!.data as { usage: unknown }).usage
  expect(usage).toMatchObject({ estimated: true, promptTokens: expect.any(Number) })

  // A turn the server reported is not marked.
  const resumed = await runCli(['run', '--json', '-r', lines[0]!.sessionId as string, 'go on'], {
    env: w.env,
    cwd: w.project,
  })
  expect(jsonLines(resumed.stdout).at(-1)).toMatchObject({ reason: 'completed', usageEstimated: false })
})
