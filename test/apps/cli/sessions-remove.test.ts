// `dsh sessions rm` and `prune`, and the list columns they rely on: real CLI processes
// over real JSONL and SQLite stores in temp folders. Sub-agent sessions and spill files
// go with their parent; a session being written is never removed; an unknown id is one line.

import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { encodeSessionId } from '../../../src/persistence/jsonl/layout.js'
import { SqliteSessionBackend } from '../../../src/persistence/sqlite/backend.js'
import { type BackendFixture, LogBuilder, makeHeader, startHarness } from '../../persistence/fixtures.js'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, type CliWorld, hasStack, makeWorld, runCli, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-rm-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

function spill(w: CliWorld, id: string): string {
  const dir = join(w.home, 'spill', encodeSessionId(id))
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'out.txt'), 'long output')
  return dir
}

function ids(stdout: string): string[] {
  return (JSON.parse(stdout) as { id: string }[]).map((row) => row.id)
}

it('rm removes a session with its sub-agent session and their spill files; list folds sub-agents', async () => {
  const model = await startModel([
    { toolCalls: [{ name: 'subagent', arguments: { description: 'look', prompt: 'look around' } }] },
    { text: 'the child looked' },
    { text: 'all done' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const run = await runCli(['run', '--json', 'delegate this'], { env: w.env, cwd: w.project })
  expect(run.code, run.stderr).toBe(0)

  const all = JSON.parse(
    (await runCli(['sessions', 'list', '--json', '--subagents'], { env: w.env, cwd: w.project })).stdout,
  ) as {
    id: string
    origin: string | null
    parentSession: string | null
    outcome: string
    subagents: number
  }[]
  expect(all).toHaveLength(2)
  const parent = all.find((row) => row.origin === null)!
  const child = all.find((row) => row.origin === 'subagent')!
  expect(child.parentSession).toBe(parent.id)
  expect(parent).toMatchObject({ outcome: 'completed', subagents: 1 })

  // Folded by default: one row, with the count.
  const folded = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
  expect(ids(folded.stdout)).toEqual([parent.id])
  const table = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(table.stdout).toMatch(/^ID\s+AGE\s+TURNS\s+USAGE\s+STATUS\s+TITLE$/m)
  expect(table.stdout).toMatch(
    new RegExp(
      `^${parent.id}\\s+\\S+\\s+1\\s+.*\\$.*\\s+completed\\s+delegate this \\(\\+1 sub-agent, --subagents\\)$`,
      'm',
    ),
  )
  expect(table.stdout).not.toContain(child.id)
  const tree = await runCli(['sessions', 'list', '--subagents'], { env: w.env, cwd: w.project })
  expect(tree.stdout).toMatch(new RegExp(`^└ ${child.id}\\s+.*completed\\s+look around$`, 'm'))

  const parentSpill = spill(w, parent.id)
  const childSpill = spill(w, child.id)
  const paths = await Promise.all(
    [parent.id, child.id].map(async (id) =>
      (await runCli(['sessions', 'path', id], { env: w.env })).stdout.trim(),
    ),
  )
  const rm = await runCli(['sessions', 'rm', parent.id], { env: w.env, cwd: w.project })
  expect(rm.code, rm.stderr).toBe(0)
  expect(rm.stdout).toMatch(new RegExp(`^removed ${parent.id}  .*delegate this$`, 'm'))
  expect(rm.stdout).toMatch(new RegExp(`^removed ${child.id}  \\(sub-agent of ${parent.id}\\)$`, 'm'))
  for (const path of [...paths, parentSpill, childSpill]) expect(existsSync(path), path).toBe(false)
  const after = await runCli(['sessions', 'list', '--json', '--subagents'], { env: w.env, cwd: w.project })
  expect(JSON.parse(after.stdout)).toEqual([])
})

it('rm of an unknown id is one line and exit 1, and removes none of the other ids given', async () => {
  const w = makeWorld(makeDir(), 'http://127.0.0.1:9')
  const harness = await startHarness({
    plugin: JsonlSessionBackend,
    config: { root: join(w.home, 'sessions') },
    durable: true,
  })
  await harness.backend().create(makeHeader('kept', { cwd: w.project }))
  await harness.backend().append('kept', new LogBuilder().completedTurn(1, 'hi').events)
  await harness.dispose()
  const rm = await runCli(['sessions', 'rm', 'kept', 'nope'], { env: w.env, cwd: w.project })
  expect(rm.code).toBe(2)
  expect(rm.stderr).toBe('dsh: unknown session "nope"\n')
  expect(hasStack(rm.stderr)).toBe(false)
  expect(rm.stdout).toBe('')
  expect(ids((await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout)).toEqual([
    'kept',
  ])
})

it('rm refuses a session another process is writing, naming it, and keeps the session', async () => {
  const model = await startModel([
    { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
    { text: 'never' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const running = spawnCli(['run', '--json', 'wait a while'], {
    env: w.env,
    cwd: w.project,
    timeoutMs: 40_000,
  })
  try {
    await until(() => running.stdout().includes('"tool-start"'), 15_000)
    const id = (JSON.parse(running.stdout().split('\n')[0]!) as { sessionId: string }).sessionId
    const rm = await runCli(['sessions', 'rm', id], { env: w.env, cwd: w.project })
    expect(rm.code).toBe(1)
    expect(rm.stderr).toMatch(
      new RegExp(
        `^dsh: session "${id}" is being written by process ${running.child.pid} on .*; it was not removed .*\\n$`,
      ),
    )
    expect(rm.stderr.split('\n')).toHaveLength(2)
    const list = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id, outcome: 'open' })])
  } finally {
    running.child.kill('SIGINT')
    await running.done
  }
})

const jsonlFixture = (w: CliWorld): BackendFixture<{ root: string }> => ({
  plugin: JsonlSessionBackend,
  config: { root: join(w.home, 'sessions') },
  durable: true,
})
const sqliteFixture = (w: CliWorld): BackendFixture<{ file: string }> => ({
  plugin: SqliteSessionBackend,
  config: { file: join(w.home, 'sessions.db') },
  durable: true,
})
const BACKENDS = [
  ['jsonl', '', (w: CliWorld) => startHarness(jsonlFixture(w))],
  ['sqlite', 'persistence:\n  backend: sqlite\n', (w: CliWorld) => startHarness(sqliteFixture(w))],
] as const

describe.each(BACKENDS)('prune (%s)', (_name, config, startStore) => {
  it('removes sessions older than the age, with their sub-agents; --dry-run removes nothing', async () => {
    const w = makeWorld(makeDir(), 'http://127.0.0.1:9', config)
    const elsewhere = join(w.home, 'elsewhere')
    const harness = await startStore(w)
    // LogBuilder's events are from 2023: long ago. `recent` is written now.
    const stored: [string, object][] = [
      ['old', { cwd: w.project }],
      ['old-parent', { cwd: w.project }],
      ['old-child', { cwd: w.project, parentSession: 'old-parent', origin: 'subagent', delegationDepth: 1 }],
      ['old-elsewhere', { cwd: elsewhere }],
    ]
    for (const [id, extra] of stored) {
      await harness.backend().create(makeHeader(id, extra))
      await harness.backend().append(id, new LogBuilder().completedTurn(1, `${id} asks`).events)
    }
    await harness.backend().create(makeHeader('recent', { cwd: w.project, createdAt: Date.now() }))
    await harness.backend().append('recent', [
      { seq: 0, type: 'turn/start', time: Date.now(), data: { turn: 1 } },
      { seq: 1, type: 'user/message', time: Date.now(), data: { text: 'fresh' } },
    ])
    await harness.dispose()
    const list = async (...args: string[]) =>
      ids(
        (await runCli(['sessions', 'list', '--json', '--all', '--subagents', ...args], { env: w.env }))
          .stdout,
      ).sort()

    const dry = await runCli(['sessions', 'prune', '--older-than', '30d', '--dry-run'], {
      env: w.env,
      cwd: w.project,
    })
    expect(dry.code, dry.stderr).toBe(0)
    expect(
      dry.stdout
        .split('\n')
        .filter((line) => /^would remove \S+ {2}/.test(line))
        .map((line) => line.split(/\s+/)[2])
        .sort(),
    ).toEqual(['old', 'old-child', 'old-parent'])
    expect(dry.stdout).toContain(
      `would remove 2 sessions and 1 sub-agent session older than 30d in ${w.project}`,
    )
    expect(await list()).toEqual(['old', 'old-child', 'old-elsewhere', 'old-parent', 'recent'])

    const pruned = await runCli(['sessions', 'prune', '--older-than', '2w'], { env: w.env, cwd: w.project })
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(pruned.stdout).toMatch(/^removed old-parent {2}\S+ {2}old-parent asks$/m)
    expect(pruned.stdout).toMatch(/^removed old-child {2}\(sub-agent of old-parent\)$/m)
    expect(pruned.stdout).toContain('removed 2 sessions and 1 sub-agent session older than 2w')
    expect(await list()).toEqual(['old-elsewhere', 'recent'])

    // The recent one is younger than 12h; --all reaches every folder.
    const everywhere = await runCli(['sessions', 'prune', '--older-than', '12h', '--all'], {
      env: w.env,
      cwd: w.project,
    })
    expect(everywhere.stdout).toContain('removed 1 session older than 12h')
    expect(await list()).toEqual(['recent'])
    const none = await runCli(['sessions', 'prune', '--older-than', '12h'], { env: w.env, cwd: w.project })
    expect(none.stdout).toBe(`no sessions older than 12h in ${w.project}\n`)
  })
})

it('prune refuses an age it cannot read, with exit 2', async () => {
  const w = makeWorld(makeDir(), 'http://127.0.0.1:9')
  for (const bad of ['30', '30days', '0d', '-1d', '1.5h']) {
    const run = await runCli(['sessions', 'prune', '--older-than', bad], { env: w.env, cwd: w.project })
    expect(run.code, bad).toBe(2)
    expect(run.stderr).toMatch(
      /^dsh: --older-than takes a whole number and a unit h \(hours\), d \(days\) or w \(weeks\)/,
    )
  }
  expect(readdirSync(w.home)).toEqual(['config.yaml'])
})

it("list shows a fork's own title, and says so while the fork has no prompt of its own", async () => {
  const w = makeWorld(makeDir(), 'http://127.0.0.1:9')
  const harness = await startHarness(jsonlFixture(w))
  const seed = new LogBuilder().completedTurn(1, 'the parent asked').events
  await harness.backend().create(makeHeader('parent-session', { cwd: w.project }))
  await harness.backend().append('parent-session', seed)
  const fork = { cwd: w.project, parentSession: 'parent-session', seedLength: seed.length }
  await harness.backend().create(makeHeader('fork-asked', fork))
  await harness
    .backend()
    .append('fork-asked', [...seed, ...new LogBuilder(seed.length).openTurn(2, 'the fork asked').events])
  await harness.backend().create(makeHeader('fork-silent', fork))
  await harness.backend().append('fork-silent', seed)
  await harness.dispose()
  const table = (await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })).stdout
  expect(table).toMatch(/^fork-asked\s+.*\s+open\s+the fork asked$/m)
  expect(table).toMatch(/^fork-silent\s+.*\s+completed\s+\(fork of parent-s, no prompt yet\)$/m)
  expect(table).toMatch(/^parent-session\s+.*\s+completed\s+the parent asked$/m)
})
