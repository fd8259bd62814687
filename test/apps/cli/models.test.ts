// `dsh models` against the strict stand-in: one line per model, the default marked; a wrong
// key and an unreachable server are one line each.

import { beforeAll, describe, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, cliEnv, hasStack, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-models-')
const startModel = useLoopbackModels()
beforeAll(assertBuilt)

describe('dsh models', () => {
  it('lists the endpoint’s models and marks the configured default', async () => {
    const model = await startModel([], { strict: true, apiKey: 'k' })
    const env = cliEnv({ DSH_HOME: makeDir(), DEEPSEEK_API_KEY: 'k', DEEPSEEK_BASE_URL: model.baseUrl })
    const listed = await runCli(['models'], { env })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toBe(
      'deepseek-flash  (default, images)\ndeepseek-v4-pro\ndeepseek-v4-flash\ndeepseek-v4-flash-vision-exp  (images)\n',
    )
    const wrong = await runCli(['models'], { env: { ...env, DEEPSEEK_API_KEY: 'nope' } })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toMatch(
      /^dsh: listing models failed: authentication failed \(HTTP 401.*check that DEEPSEEK_API_KEY/,
    )
    expect(hasStack(wrong.stderr)).toBe(false)
    const bad = await runCli(['models'], { env: { ...env, DEEPSEEK_BASE_URL: 'ftp://x' } })
    expect(bad.stderr).toBe(
      'dsh: DEEPSEEK_BASE_URL: "ftp://x" is not a usable model server URL (expected http:// or https://, e.g. https://api.deepseek.com)\n',
    )
  })
})
