// `dsh stdio` and `dsh acp` as child processes: stdout carries protocol messages only,
// a missing key fails up front with one line, and plugin warnings reach stderr.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, jsonLines, makeWorld, runCli, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-servers-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

const request = (id: number, method: string, params: unknown) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`

describe('dsh stdio', () => {
  it('answers initialize and session/prompt with JSON-RPC only on stdout', async () => {
    const model = await startModel([{ text: 'served over stdio' }], { strict: true })
    const w = makeWorld(makeDir(), model.baseUrl)
    const input =
      request(1, 'initialize', { sessionId: 'stdio-exact', cwd: w.project }) +
      request(2, 'session/prompt', { text: 'hello' })
    // Stdin stays open until the prompt is answered: a closed stdin cancels the running turn.
    const child = spawnCli(['stdio'], { env: w.env, cwd: w.project, openStdin: true })
    child.child.stdin!.write(input)
    await vi.waitFor(() => expect(child.stdout()).toContain('"id":2'), { timeout: 15_000 })
    child.child.stdin!.end()
    const result = await child.done
    expect(result.code).toBe(0)
    const messages = jsonLines(result.stdout)
    expect(messages.every((message) => message.jsonrpc === '2.0')).toBe(true)
    expect(messages.find((message) => message.id === 1)).toMatchObject({
      result: { sessionId: 'stdio-exact', resumed: false },
    })
    expect(messages.find((message) => message.id === 2)).toMatchObject({
      result: { reason: 'completed', text: 'served over stdio' },
    })
    const listed = JSON.parse(
      (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
    )
    expect(listed).toMatchObject([{ id: 'stdio-exact', turns: 1 }])
  })

  it('fails up front, in one line, without an API key', async () => {
    const model = await startModel([], { strict: true })
    const w = makeWorld(makeDir(), model.baseUrl)
    const env = { ...w.env }
    delete env.DEEPSEEK_API_KEY
    // A remote server needs a key (a loopback one does not).
    writeFileSync(join(w.home, 'config.yaml'), 'model:\n  baseUrl: http://model.invalid:9\n')
    for (const command of ['stdio', 'acp']) {
      const result = await runCli([command], { env, cwd: w.project, input: '' })
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(result.stderr).toContain('DEEPSEEK_API_KEY')
    }
  })
})

describe('dsh acp', () => {
  it('answers initialize and session/new with the dsh session id', async () => {
    const model = await startModel([], { strict: true })
    const w = makeWorld(makeDir(), model.baseUrl)
    const server = spawnCli(['acp'], { env: w.env, cwd: w.project, openStdin: true })
    const answer = async (id: number) => {
      const deadline = Date.now() + 10_000
      for (;;) {
        const found = jsonLines(server.stdout()).find((message) => message.id === id)
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no answer ${id}; stderr: ${server.stderr()}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    server.child.stdin!.write(request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} }))
    expect(await answer(1)).toMatchObject({ result: { protocolVersion: 1, agentInfo: { name: 'dsh' } } })
    server.child.stdin!.write(request(2, 'session/new', { cwd: w.project, mcpServers: [] }))
    const created = (await answer(2)) as { result: { sessionId: string } }
    expect(created.result.sessionId).toMatch(/^acp-session-/)
    server.child.stdin!.end()
    const result = await server.done
    expect(result.code).toBe(0)
    expect(jsonLines(result.stdout).every((message) => message.jsonrpc === '2.0')).toBe(true)
  })

  it("--permission-mode is the sessions' initial ACP mode; bypassPermissions warns on stderr only", async () => {
    const model = await startModel([], { strict: true })
    const w = makeWorld(makeDir(), model.baseUrl)
    const server = spawnCli(['acp', '--permission-mode', 'bypassPermissions'], {
      env: w.env,
      cwd: w.project,
      openStdin: true,
    })
    // The SDK answers nothing but `initialize` until the connection is initialized.
    server.child.stdin!.write(request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} }))
    await vi.waitFor(() => expect(server.stdout()).toContain('"id":1'), { timeout: 15_000 })
    server.child.stdin!.write(request(2, 'session/new', { cwd: w.project, mcpServers: [] }))
    await vi.waitFor(() => expect(server.stdout()).toContain('"id":2'), { timeout: 15_000 })
    server.child.stdin!.end()
    const result = await server.done
    expect(result.code).toBe(0)
    const created = jsonLines(result.stdout).find((message) => message.id === 2) as {
      result: { modes: { currentModeId: string; availableModes: { id: string }[] } }
    }
    expect(created.result.modes.currentModeId).toBe('bypassPermissions')
    expect(created.result.modes.availableModes.map((mode) => mode.id)).toContain('plan')
    expect(result.stderr).toBe(
      'dsh: warning: permission mode bypassPermissions: every tool call runs without asking, also outside the project (deny rules still apply)\n',
    )
  })
})

it('plugin warnings (a missing hook file) go to stderr and the run still completes', async () => {
  const model = await startModel([{ text: 'done anyway' }], { strict: true })
  const w = makeWorld(makeDir(), model.baseUrl)
  const missing = join(w.home, 'no-such-settings.json')
  writeFileSync(
    join(w.home, 'config.yaml'),
    `model:\n  baseUrl: ${model.baseUrl}\nhooks:\n  claudeCode: [${JSON.stringify(missing)}]\n`,
  )
  const result = await runCli(['run', 'hi'], { env: w.env, cwd: w.project })
  expect(result.code).toBe(0)
  expect(result.stdout).toBe('done anyway\n')
  expect(result.stderr).toMatch(/^dsh: warning: .*no-such-settings\.json/m)
  expect(hasStack(result.stderr)).toBe(false)
})
