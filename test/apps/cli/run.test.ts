// `dsh run` and `dsh sessions` against a loopback model, through the real built CLI.

import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Script, useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, cliEnv, jsonLines, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-')
const startModel = useLoopbackModels()
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const world = (script: Script) => startWorld(script, { strict: true })

function sessionLines(path: string): Record<string, unknown>[] {
  return jsonLines(readFileSync(path, 'utf8'))
}

describe('dsh run', () => {
  it('works with no --model and no config file at all: deepseek-flash, thinking on, effort high', async () => {
    const model = await startModel([{ reasoning: 'Easy.', text: 'Hello from flash.' }], { strict: true })
    const dir = realpathSync(makeDir())
    mkdirSync(join(dir, 'home'))
    const env = cliEnv({
      DSH_HOME: join(dir, 'home'),
      DEEPSEEK_API_KEY: 'k',
      DEEPSEEK_BASE_URL: model.baseUrl,
    })
    const result = await runCli(['run', 'hi'], { env, cwd: dir })
    expect(result.stderr).not.toContain('turn ended')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('Hello from flash.\n')
    expect(model.requests[0]).toMatchObject({
      model: 'deepseek-flash',
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
    })
  })

  it('reports usage equal to the sums of the per-step usage in the log: stderr, --json, sessions show and list', async () => {
    const w = await world([
      { reasoning: 'Look first.', toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] },
      { reasoning: 'Done.', text: 'Said hi.' },
      { reasoning: 'Again.', text: 'Second turn.' },
    ])
    const first = await runCli(['run', '--session-id', 'usage-1', 'say hi'], { env: w.env, cwd: w.project })
    expect(first.code).toBe(0)
    expect(first.stderr).toMatch(
      /^usage [\d,]+ in \(\d+% cache hit\) · [\d,]+ out \([\d,]+ reasoning\) · ~\$[\d.]+$/m,
    )
    const second = await runCli(['run', '--json', '--session-id', 'usage-1', 'again'], {
      env: w.env,
      cwd: w.project,
    })
    const result = jsonLines(second.stdout).at(-1)!
    const log = jsonLines(
      (await runCli(['sessions', 'show', '--json', 'usage-1'], { env: w.env, cwd: w.project })).stdout,
    )
    const steps = log
      .filter((line) => line.type === 'assistant/message')
      .map((line) => line.data as { usage: Record<string, number> })
    const sum = (from: number, key: string) =>
      steps.slice(from).reduce((total, step) => total + (step.usage[key] ?? 0), 0)
    expect(steps).toHaveLength(3)
    expect(result.usage).toMatchObject({
      inputTokens: sum(2, 'promptTokens'),
      outputTokens: sum(2, 'completionTokens'),
    })
    const session = result.sessionUsage as Record<string, number>
    expect(session).toMatchObject({
      inputTokens: sum(0, 'promptTokens'),
      cacheHitTokens: sum(0, 'cachedTokens'),
      outputTokens: sum(0, 'completionTokens'),
      reasoningTokens: sum(0, 'reasoningTokens'),
    })
    expect(session.cacheHitTokens).toBeGreaterThan(0)
    expect(session.cacheHitTokens + session.cacheMissTokens).toBe(session.inputTokens)
    expect(session.cost).toBeGreaterThan(0)
    const list = JSON.parse(
      (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
    ) as { usage: unknown }[]
    expect(list[0]!.usage).toEqual(session)
    const table = (await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })).stdout
    expect(table).toMatch(/USAGE/)
    expect(table).toMatch(/usage-1 .* \d[\d.]*k? tok ~\$[\d.]+ /)
    const show = (await runCli(['sessions', 'show', 'usage-1'], { env: w.env, cwd: w.project })).stdout
    expect(show).toContain(`usage    ${session.inputTokens.toLocaleString('en-US')} in`)
  })

  it('--effort off sends thinking disabled; a bad --effort is one line before any request', async () => {
    const w = await world([{ text: 'Quick answer.' }])
    const off = await runCli(['run', '--effort', 'off', 'hi'], { env: w.env, cwd: w.project })
    expect(off.code).toBe(0)
    expect(w.model.requests[0]!.thinking).toEqual({ type: 'disabled' })
    const bad = await runCli(['run', '--effort', 'medium', 'hi'], { env: w.env, cwd: w.project })
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toBe('dsh: --effort: unknown effort "medium" (use one of off, low, high, max)\n')
    expect(w.model.requests).toHaveLength(1)
  })

  it('prints the final answer, writes a session, and sessions list/show/path find it', async () => {
    const w = await world([{ text: 'The answer is 42.' }])
    const run = await runCli(['run', 'what is the answer?'], { env: w.env, cwd: w.project })
    expect(run.stderr).toMatch(/session \S+ \(new\)/)
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('The answer is 42.\n')

    const list = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
    expect(list.code).toBe(0)
    const rows = JSON.parse(list.stdout) as {
      id: string
      turns: number
      title: string
      path: string
      cwd: string
    }[]
    expect(rows).toHaveLength(1)
    const [row] = rows
    expect(row).toMatchObject({ turns: 1, title: 'what is the answer?', cwd: w.project })

    const table = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
    expect(table.stdout).toMatch(/^ID\s+AGE\s+TURNS\s+USAGE\s+STATUS\s+TITLE$/m)
    expect(table.stdout).toContain(row!.id)

    const path = await runCli(['sessions', 'path', row!.id], { env: w.env, cwd: w.project })
    expect(path.code).toBe(0)
    expect(path.stdout.trim()).toBe(row!.path)
    expect(row!.path.startsWith(`${w.home}/sessions/`)).toBe(true)
    const lines = sessionLines(row!.path)
    expect(lines[0]).toMatchObject({ type: 'session', id: row!.id, cwd: w.project })
    expect(lines.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })

    const show = await runCli(['sessions', 'show', row!.id], { env: w.env, cwd: w.project })
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('user> what is the answer?')
    expect(show.stdout).toContain('The answer is 42.')
    expect(show.stdout).toContain('(turn 1 completed)')

    const elsewhere = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.home })
    expect(JSON.parse(elsewhere.stdout)).toEqual([])
    const all = await runCli(['sessions', 'list', '--all', '--json'], { env: w.env, cwd: w.home })
    expect(JSON.parse(all.stdout)).toHaveLength(1)
  })

  it('reads the prompt from stdin with `-` and prints JSON lines with --json', async () => {
    const w = await world([{ text: 'from stdin' }])
    const run = await runCli(['run', '--json', '-'], { env: w.env, cwd: w.project, input: 'piped prompt\n' })
    expect(run.code).toBe(0)
    const events = jsonLines(run.stdout)
    expect(events[0]).toMatchObject({ type: 'session', how: 'new', cwd: w.project })
    expect(events.map((event) => event.type)).toContain('text-delta')
    expect(events.at(-1)).toMatchObject({ type: 'result', reason: 'completed', text: 'from stdin' })
    expect(w.model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'piped prompt\n' })
  })

  it('--resume continues the session with its history', async () => {
    const w = await world([{ text: 'first answer' }, { text: 'second answer' }])
    const first = jsonLines(
      (await runCli(['run', '--json', 'first question'], { env: w.env, cwd: w.project })).stdout,
    )
    const id = first[0]!.sessionId as string
    const second = await runCli(['run', '--resume', id, 'second question'], { env: w.env, cwd: w.project })
    expect(second.code).toBe(0)
    expect(second.stderr).toContain(`session ${id} (resumed)`)
    expect(second.stdout).toBe('second answer\n')
    const contents = w.model.requests[1]!.messages.map((message) => message.content)
    expect(contents).toEqual(expect.arrayContaining(['first question', 'first answer', 'second question']))
    const rows = JSON.parse(
      (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
    )
    expect(rows).toMatchObject([{ id, turns: 2 }])
  })

  it('--session-id resumes when stored and creates otherwise', async () => {
    const w = await world([{ text: 'one' }, { text: 'two' }])
    const created = await runCli(['run', '--session-id', 'my exact id', 'hi'], { env: w.env, cwd: w.project })
    expect(created.stderr).toContain('session my exact id (new)')
    const resumed = await runCli(['run', '--session-id', 'my exact id', 'again'], {
      env: w.env,
      cwd: w.project,
    })
    expect(resumed.code).toBe(0)
    expect(resumed.stderr).toContain('session my exact id (resumed)')
    expect(w.model.requests[1]!.messages.map((message) => message.content)).toContain('hi')
  })

  it('--fork makes a new id whose header names the parent and keeps the history', async () => {
    const w = await world([{ text: 'parent answer' }, { text: 'child answer' }])
    const parent = jsonLines(
      (await runCli(['run', '--json', 'in the parent'], { env: w.env, cwd: w.project })).stdout,
    )
    const parentId = parent[0]!.sessionId as string
    const fork = jsonLines(
      (await runCli(['run', '--json', '--fork', parentId, 'in the child'], { env: w.env, cwd: w.project }))
        .stdout,
    )
    const child = fork[0]!
    expect(child).toMatchObject({ type: 'session', how: 'forked', parentSession: parentId, cwd: w.project })
    expect(child.sessionId).not.toBe(parentId)
    const header = sessionLines(child.transcriptPath as string)[0]
    expect(header).toMatchObject({
      type: 'session',
      id: child.sessionId,
      parentSession: parentId,
      cwd: w.project,
    })
    expect(w.model.requests[1]!.messages.map((message) => message.content)).toContain('in the parent')
    // The parent is unchanged: one turn.
    const parentLog = sessionLines(parent[0]!.transcriptPath as string)
    expect(parentLog.filter((line) => line.type === 'turn/start')).toHaveLength(1)
  })

  it('--continue picks the most recent session of the folder', async () => {
    const w = await world([{ text: 'a' }, { text: 'b' }, { text: 'c' }])
    const older = jsonLines((await runCli(['run', '--json', 'older'], { env: w.env, cwd: w.project })).stdout)
    const newer = jsonLines((await runCli(['run', '--json', 'newer'], { env: w.env, cwd: w.project })).stdout)
    expect(older[0]!.sessionId).not.toBe(newer[0]!.sessionId)
    const continued = await runCli(['run', '--continue', 'more'], { env: w.env, cwd: w.project })
    expect(continued.code).toBe(0)
    expect(continued.stderr).toContain(`session ${newer[0]!.sessionId} (resumed)`)
    const contents = w.model.requests[2]!.messages.map((message) => message.content)
    expect(contents).toContain('newer')
    expect(contents).not.toContain('older')
  })

  it('--agent uses a config row: its model, its cwd relative to the config file, its exact session id', async () => {
    const w = await world([{ text: 'as the reviewer' }, { text: 'again' }])
    writeFileSync(
      join(w.home, 'config.yaml'),
      `model:\n  baseUrl: ${w.model.baseUrl}\nagents:\n  - id: reviewer\n    model: deepseek-v4-pro\n    cwd: ../project\n    sessionId: review-1\n`,
    )
    const first = await runCli(['run', '--json', '--agent', 'reviewer', 'review'], {
      env: w.env,
      cwd: w.home,
    })
    expect(first.code).toBe(0)
    expect(jsonLines(first.stdout)[0]).toMatchObject({ sessionId: 'review-1', how: 'new', cwd: w.project })
    expect(w.model.requests[0]!.model).toBe('deepseek-v4-pro')
    const second = await runCli(['run', '--agent', 'reviewer', '-m', 'other-model', 'more'], {
      env: w.env,
      cwd: w.home,
    })
    expect(second.stderr).toContain('session review-1 (resumed)')
    expect(w.model.requests[1]!.model).toBe('other-model')
    const unknown = await runCli(['run', '--agent', 'nobody', 'hi'], { env: w.env, cwd: w.home })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(
      /^dsh: --agent "nobody": no such row in agents\[\] of the config \(known: reviewer\)\n$/,
    )
  })

  it('exits non-zero when the turn does not complete', async () => {
    const w = await world([{ status: 400, message: 'bad request from the scripted model' }])
    const run = await runCli(['run', 'hello'], { env: w.env, cwd: w.project })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('turn ended: error')
  })
})
