// SIGTERM and SIGHUP end `dsh run` like Ctrl-C: the turn is cancelled (`aborted`),
// the running command and background jobs are killed with their process groups, the
// session is flushed and its lock released; exit 143/129. A closed stdin ends `dsh acp`
// the same way, and `dsh stdio` after a `session/cancel` (without one it finishes the turn).

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { processesWith } from '../../support/processes.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, jsonLines, makeWorld, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-term-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

/** A script whose first step starts a background job and then a foreground command, both sleeping long. */
function sleepyScript(dir: string, tag: string) {
  const marker = join(dir, 'started')
  const fg = `9${tag}1.5`
  const bg = `9${tag}2.5`
  return {
    marker,
    sleeps: [fg, bg],
    script: [
      {
        toolCalls: [
          { name: 'bash', arguments: { command: `sleep ${bg}`, run_in_background: true } },
          { name: 'bash', arguments: { command: `touch ${marker}; sleep ${fg}; echo never` } },
        ],
      },
      { text: 'not reached' },
    ],
  }
}

describe.each([
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('dsh run and %s', (signal, exitCode) => {
  it(`cancels the turn, kills every process group, flushes, releases the lock, exits ${exitCode}`, async () => {
    const dir = makeDir()
    const tag = String(Math.floor(Math.random() * 1e6)).padStart(6, '0')
    const plan = sleepyScript(dir, tag)
    const model = await startModel(plan.script)
    const w = makeWorld(dir, model.baseUrl)
    const run = spawnCli(['run', '--json', 'sleep a lot'], { env: w.env, cwd: w.project, timeoutMs: 40_000 })
    await until(() => existsSync(plan.marker), 20_000, 'the foreground command')
    await until(() => plan.sleeps.every((sleep) => processesWith(sleep).length > 0), 20_000, 'both sleeps')

    run.child.kill(signal)
    const result = await run.done
    expect(result.code, result.stderr).toBe(exitCode)
    expect(result.signal).toBeNull()
    for (const sleep of plan.sleeps) expect(processesWith(sleep), `sleep ${sleep} leaked`).toEqual([])

    const lines = jsonLines(result.stdout)
    expect(lines.at(-1)).toMatchObject({ type: 'result', reason: 'aborted' })
    const path = lines[0]!.transcriptPath as string
    expect(existsSync(`${path}.lock`)).toBe(false)
    const events = jsonLines(readFileSync(path, 'utf8')).slice(1)
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  })
})

describe('dsh stdio with its input piped', () => {
  it('answers the whole turn: the end of input waits for it', async () => {
    const dir = makeDir()
    const model = await startModel([{ text: 'the full answer', delayMs: 200 }])
    const w = makeWorld(dir, model.baseUrl)
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { cwd: w.project } },
      { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { text: 'hello' } },
    ]
      .map((message) => `${JSON.stringify(message)}\n`)
      .join('')
    const result = await spawnCli(['stdio'], { env: w.env, cwd: w.project, input, timeoutMs: 40_000 }).done
    expect(result.code, result.stderr).toBe(0)
    const answer = jsonLines(result.stdout).find((line) => line.id === 2)
    expect(answer?.result).toMatchObject({ reason: 'completed', text: 'the full answer' })
  })
  it('--max-turns bounds the turn the end of input waits for', async () => {
    const dir = makeDir()
    const model = await startModel([
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo again' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo again' } }] },
      { text: 'not reached' },
    ])
    const w = makeWorld(dir, model.baseUrl)
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { cwd: w.project } },
      { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { text: 'loop' } },
    ]
      .map((message) => `${JSON.stringify(message)}\n`)
      .join('')
    const result = await spawnCli(['stdio', '--max-turns', '1', '--permission-mode', 'bypassPermissions'], {
      env: w.env,
      cwd: w.project,
      input,
      timeoutMs: 40_000,
    }).done
    expect(result.code, result.stderr).toBe(0)
    expect(jsonLines(result.stdout).find((line) => line.id === 2)?.result).toMatchObject({
      reason: 'max-steps',
    })
    expect(model.requests).toHaveLength(1)
  })
})

describe.each(['stdio', 'acp'] as const)('dsh %s with stdin closed mid-turn', (server) => {
  it('cancels the turn, kills the command and its job, flushes, exits 0', async () => {
    const dir = makeDir()
    const tag = String(Math.floor(Math.random() * 1e6)).padStart(6, '0')
    const plan = sleepyScript(dir, tag)
    const model = await startModel(plan.script)
    const w = makeWorld(dir, model.baseUrl)
    const child = spawnCli([server], { env: w.env, cwd: w.project, openStdin: true, timeoutMs: 40_000 })
    const send = (message: object) =>
      child.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    if (server === 'stdio') {
      send({ id: 1, method: 'initialize', params: { cwd: w.project } })
      await until(() => child.stdout().includes('"id":1'), 20_000, 'initialize')
      send({ id: 2, method: 'session/prompt', params: { text: 'sleep a lot' } })
    } else {
      send({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })
      await until(() => child.stdout().includes('"id":1'), 20_000, 'initialize')
      send({ id: 2, method: 'session/new', params: { cwd: w.project, mcpServers: [] } })
      await until(() => child.stdout().includes('"id":2'), 20_000, 'session/new')
      const sessionId = jsonLines(child.stdout()).find((line) => line.id === 2)!.result as {
        sessionId: string
      }
      send({
        id: 3,
        method: 'session/prompt',
        params: { sessionId: sessionId.sessionId, prompt: [{ type: 'text', text: 'sleep a lot' }] },
      })
    }
    await until(() => existsSync(plan.marker), 20_000, 'the foreground command')
    await until(() => plan.sleeps.every((sleep) => processesWith(sleep).length > 0), 20_000, 'both sleeps')
    // stdio finishes a running turn at the end of its input unless it was cancelled first.
    if (server === 'stdio') send({ method: 'session/cancel' })
    child.child.stdin!.end()
    const result = await child.done
    expect(result.code, result.stderr).toBe(0)
    for (const sleep of plan.sleeps) expect(processesWith(sleep), `sleep ${sleep} leaked`).toEqual([])
    const sessions = join(w.home, 'sessions')
    const bucket = readdirSync(sessions)[0]!
    const files = readdirSync(join(sessions, bucket))
    expect(files.filter((file) => file.endsWith('.lock'))).toEqual([])
    const log = jsonLines(
      readFileSync(join(sessions, bucket, files.find((f) => f.endsWith('.jsonl'))!), 'utf8'),
    )
    expect(log.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  })
})
