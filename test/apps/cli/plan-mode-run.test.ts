// Headless `--permission-mode plan`: a command that only reads runs; one that could
// change things is refused, and the model is told why.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-plan-')
const startWorld = useModelWorlds(makeDir)
beforeAll(assertBuilt)

it('plan mode runs read-only bash commands and refuses the rest with the reason', async () => {
  const w = await startWorld([
    { toolCalls: [{ name: 'bash', arguments: { command: 'ls -a | wc -l' } }] },
    { toolCalls: [{ name: 'bash', arguments: { command: 'touch made-in-plan-mode' } }] },
    { text: 'here is the plan' },
  ])
  const result = await runCli(['run', '--permission-mode', 'plan', 'research'], {
    env: w.env,
    cwd: w.project,
  })
  expect(result.code, result.stderr).toBe(0)
  const toolResults = w.model.requests.map((request) => request.messages.at(-1))
  expect(toolResults[1]).toMatchObject({ role: 'tool' })
  expect(String(toolResults[1]!.content)).toMatch(/^\s*2\s*$/m)
  expect(String(toolResults[2]!.content)).toMatch(
    /plan mode is on: only read-only commands run, and this one is not \(touch: not a known read-only command\)/,
  )
  expect(existsSync(join(w.project, 'made-in-plan-mode'))).toBe(false)
})
