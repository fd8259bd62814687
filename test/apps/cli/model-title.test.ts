// A model-written title end to end on the built CLI: `dsh run` exits only once the title
// call it started is logged, and `dsh sessions list` shows it.

import { beforeAll, expect, it } from 'vitest'
import { TITLE_SYSTEM_PROMPT } from '../../../src/history/index.js'
import type { ScriptStep } from '../../../src/llm/index.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, runCli, useModelWorlds } from './cli.js'

const startWorld = useModelWorlds(useTempDirs('dsh-cli-title-'))
beforeAll(assertBuilt)

it('dsh run with titles: model logs the title before exiting; sessions list shows it', async () => {
  let answered = false
  const step: ScriptStep = async (request) => {
    if (request.messages[0]?.content !== TITLE_SYSTEM_PROMPT) {
      answered = true
      return { text: 'Renamed.' }
    }
    // The title comes after the answer: the process must wait for it before it exits.
    while (!answered) await new Promise((resolve) => setImmediate(resolve))
    return { text: 'Rename the config loader' }
  }
  const w = await startWorld([step, step], { strict: true, config: 'titles: model\n' })
  const run = await runCli(['run', 'please rename loadConfig to readConfig everywhere'], {
    env: w.env,
    cwd: w.project,
  })
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toContain('Renamed.')
  expect(w.model.requests).toHaveLength(2)
  const list = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(list.code).toBe(0)
  expect(list.stdout).toContain('Rename the config loader')
  expect(list.stdout).not.toContain('please rename loadConfig')
})
