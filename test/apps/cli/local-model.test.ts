// Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) need no key: a loopback base
// URL or `model.apiKey: none` runs without DEEPSEEK_API_KEY and sends no Authorization
// header; `dsh models` lists such a server's models. A remote URL still needs a key.

import { writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-local-model-')
const startWorld = useModelWorlds(makeDir)
beforeAll(assertBuilt)

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!()
})

/** A minimal local model server listing two models, recording each request's headers. */
async function localServer(): Promise<{ baseUrl: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = []
  const server = createServer((req, res) => {
    seen.push(req.headers)
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen2.5-coder:7b' }, { id: 'llama3.2' }] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  return { baseUrl: `http://localhost:${(server.address() as AddressInfo).port}/v1`, seen }
}

function withoutKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env }
  delete copy.DEEPSEEK_API_KEY
  return copy
}

it('a loopback base URL runs a turn with no key set', async () => {
  const w = await startWorld([{ text: 'local answer' }])
  const result = await runCli(['run', 'hi'], { env: withoutKey(w.env), cwd: w.project })
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toBe('local answer\n')
})

it('dsh models lists a keyless local server and sends no Authorization header', async () => {
  const w = await startWorld([])
  const server = await localServer()
  writeFileSync(join(w.home, 'config.yaml'), `model:\n  baseUrl: ${server.baseUrl}\n  name: llama3.2\n`)
  const result = await runCli(['models'], { env: withoutKey(w.env), cwd: w.project })
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toBe('qwen2.5-coder:7b\nllama3.2  (default)\n')
  expect(server.seen).toHaveLength(1)
  expect(server.seen[0]!.authorization).toBeUndefined()
})

it('model.apiKey: none never sends a key, even when the variable is set', async () => {
  const w = await startWorld([])
  const server = await localServer()
  writeFileSync(join(w.home, 'config.yaml'), `model:\n  baseUrl: ${server.baseUrl}\n  apiKey: none\n`)
  const result = await runCli(['models', '--json'], { env: w.env, cwd: w.project })
  expect(result.code, result.stderr).toBe(0)
  expect(server.seen[0]!.authorization).toBeUndefined()
})

it('a remote base URL still needs a key; apiKey: none lifts that; any other apiKey value is refused', async () => {
  const w = await startWorld([])
  const config = join(w.home, 'config.yaml')
  writeFileSync(config, 'model:\n  baseUrl: http://model.invalid:9\n  maxRetries: 0\n')
  const keyed = await runCli(['run', 'hi'], { env: withoutKey(w.env), cwd: w.project })
  expect(keyed.code).toBe(1)
  expect(keyed.stderr).toMatch(/no API key for the model: set the DEEPSEEK_API_KEY/)

  writeFileSync(config, 'model:\n  baseUrl: http://model.invalid:9\n  maxRetries: 0\n  apiKey: none\n')
  const none = await runCli(['run', 'hi'], { env: withoutKey(w.env), cwd: w.project })
  expect(none.code).toBe(1)
  expect(none.stderr).not.toMatch(/no API key/)
  expect(none.stderr).toMatch(/could not reach http:\/\/model\.invalid:9/)

  writeFileSync(config, 'model:\n  apiKey: sk-123\n')
  const leaked = await runCli(['run', 'hi'], { env: withoutKey(w.env), cwd: w.project })
  expect(leaked.code).toBe(1)
  expect(leaked.stderr).toMatch(/model\.apiKey: apiKey may only be "none"/)
})
