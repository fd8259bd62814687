// `model.apiKeyFile`: the key is read from a file at start and never enters dsh's
// environment, so a command cannot find it in /proc/$PPID/environ.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, cliEnv, hasStack, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-keyfile-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

it('reads the key from model.apiKeyFile; it is not in the environment commands can read', async () => {
  const dir = makeDir()
  const seen = join(dir, 'parent-environ.txt')
  const model = await startModel(
    [
      {
        toolCalls: [
          { name: 'bash', arguments: { command: `tr '\\0' '\\n' < /proc/$PPID/environ > ${seen}` } },
        ],
      },
      { text: 'ok' },
    ],
    { apiKey: 'sk-from-the-file' },
  )
  const w = makeWorld(dir, model.baseUrl)
  writeFileSync(join(w.home, 'key.txt'), 'sk-from-the-file\n', { mode: 0o600 })
  writeFileSync(
    join(w.home, 'config.yaml'),
    `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\n  apiKeyFile: key.txt\n`,
  )
  const env = cliEnv({ DSH_HOME: w.home })
  const result = await runCli(['run', 'look around'], { env, cwd: w.project })
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toBe('ok\n')
  const environ = readFileSync(seen, 'utf8')
  expect(environ).toContain(`DSH_HOME=${w.home}`) // it really is dsh's environment
  expect(environ).not.toContain('sk-from-the-file')

  writeFileSync(
    join(w.home, 'config.yaml'),
    `model:\n  baseUrl: ${model.baseUrl}\n  apiKeyFile: missing.txt\n`,
  )
  const missing = await runCli(['run', 'hi'], { env, cwd: w.project })
  expect(missing.code).toBe(1)
  expect(missing.stderr).toBe(`dsh: cannot read model.apiKeyFile ${join(w.home, 'missing.txt')}: ENOENT\n`)
  expect(hasStack(missing.stderr)).toBe(false)
})
