// `dsh doctor` against the strict loopback model: ok lines when the server answers and lists
// the configured model; a problem line and exit 1 when the base URL does not answer.

import { createServer } from 'node:net'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, cliEnv, hasStack, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-doctor-')
const startModel = useLoopbackModels()
beforeAll(assertBuilt)

/** A loopback port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

it('prints one ok line per check against a reachable model server, exit 0', async () => {
  const model = await startModel([], { strict: true, apiKey: 'k' })
  const env = cliEnv({ DSH_HOME: makeDir(), DEEPSEEK_API_KEY: 'k', DEEPSEEK_BASE_URL: model.baseUrl })
  const result = await runCli(['doctor'], { env, cwd: makeDir() })
  expect(result.stderr).toBe('')
  expect(result.stdout).toMatch(/^ok +API key +set \(DEEPSEEK_API_KEY\)$/m)
  expect(result.stdout).toContain(`ok      base URL         ${model.baseUrl} reachable`)
  expect(result.stdout).toMatch(/^ok +models +4 listed, deepseek-flash among them$/m)
  expect(result.stdout).toMatch(/^(ok|note) +rg /m)
  expect(result.stdout).toMatch(/^(ok|note) +clipboard /m)
  expect(result.stdout).not.toMatch(/^problem/m)
  expect(result.code).toBe(0)
  // A model the server does not list is a problem, with the fix.
  const unknown = await runCli(['doctor', '--model', 'nosuch-model'], { env })
  expect(unknown.stdout).toMatch(/^problem +models +4 listed; "nosuch-model" is not among them — fix: /m)
  expect(unknown.code).toBe(1)
})

it('says the base URL is unreachable in one problem line and exits 1', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`
  const env = cliEnv({ DSH_HOME: makeDir(), DEEPSEEK_BASE_URL: url })
  const result = await runCli(['doctor'], { env })
  expect(result.stdout).toMatch(/^ok +API key +none needed \(the model server is on loopback\)$/m)
  const line = result.stdout.split('\n').find((text) => text.includes('base URL'))
  expect(line).toMatch(
    new RegExp(
      `^problem +base URL +${url.replace(/\./g, '\\.')} unreachable: .* — fix: check model\\.baseUrl`,
    ),
  )
  expect(hasStack(result.stdout + result.stderr)).toBe(false)
  expect(result.code).toBe(1)
})

it('without the API key does not call the model server unreachable: it was not tried', async () => {
  const env = cliEnv({ DSH_HOME: makeDir(), DEEPSEEK_BASE_URL: 'https://api.example.invalid/v1' })
  const result = await runCli(['doctor'], { env })
  expect(result.stdout).toMatch(/^problem +API key +DEEPSEEK_API_KEY is not set — fix: /m)
  expect(result.stdout).toMatch(
    /^note +base URL +https:\/\/api\.example\.invalid\/v1 not checked: no API key$/m,
  )
  expect(result.stdout).not.toContain('unreachable')
  expect(result.code).toBe(1)
})
