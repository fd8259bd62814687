// Defect 1 of issue 14, end to end: while `dsh run` is inside a tool call, `sessions
// show/path/list` in another process write nothing, a second `--resume` is refused
// naming the holder, and the running turn completes — on both backends.

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, hasStack, jsonLines, makeWorld, runCli, spawnCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-readers-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

describe.each(['jsonl', 'sqlite'] as const)('readers beside a running writer (%s)', (backend) => {
  it('never write, never break the writer; a second resume is refused naming it', async () => {
    const dir = makeDir()
    const marker = join(dir, 'in-tool')
    const release = join(dir, 'release')
    const command = `touch ${marker}; while [ ! -e ${release} ]; do sleep 0.05; done; echo released`
    const model = await startModel([
      { toolCalls: [{ name: 'bash', arguments: { command } }] },
      { text: 'all done' },
      { text: 'resumed fine' },
    ])
    const w = makeWorld(dir, model.baseUrl, `persistence:\n  backend: ${backend}\n`)
    const run = spawnCli(['run', '--json', 'take your time'], {
      env: w.env,
      cwd: w.project,
      timeoutMs: 30_000,
    })
    await until(() => existsSync(marker), 45_000, 'the tool call to start')
    const id = jsonLines(run.stdout())[0]!.sessionId as string
    const storage = backend === 'sqlite' ? join(w.home, 'sessions.db') : undefined
    const snapshot = () =>
      storage ? readFileSync(storage).length + readFileSync(`${storage}-wal`).length : run.stdout().length

    const before =
      backend === 'jsonl' ? readFileSync(jsonLines(run.stdout())[0]!.transcriptPath as string) : undefined
    const sizeBefore = snapshot()
    for (const args of [
      ['sessions', 'show', id],
      ['sessions', 'path', id],
      ['sessions', 'list', '--json'],
    ]) {
      const result = await runCli(args, { env: w.env, cwd: w.project })
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    }
    const show = await runCli(['sessions', 'show', id], { env: w.env, cwd: w.project })
    expect(show.stdout).toContain('(turn 1 open: still running, or interrupted and not yet resumed)')
    if (before) expect(readFileSync(jsonLines(run.stdout())[0]!.transcriptPath as string)).toEqual(before)
    if (storage) expect(snapshot()).toBe(sizeBefore)

    const second = await runCli(['run', '--resume', id, 'me too'], { env: w.env, cwd: w.project })
    expect(second.code, second.stdout + second.stderr).toBe(1)
    expect(second.stderr).toContain(`is being written by process ${run.child.pid}`)
    expect(second.stderr).toContain(`dsh sessions unlock ${id}`)
    expect(hasStack(second.stderr)).toBe(false)

    writeFileSync(release, '')
    const first = await run.done
    expect(first.code, first.stderr).toBe(0)
    expect(jsonLines(first.stdout).at(-1)).toMatchObject({
      type: 'result',
      reason: 'completed',
      text: 'all done',
    })

    const resumed = await runCli(['run', '--resume', id, 'now'], { env: w.env, cwd: w.project })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout).toBe('resumed fine\n')
    const json = await runCli(['sessions', 'show', '--json', id], { env: w.env, cwd: w.project })
    expect(json.stdout).not.toContain('"interrupted"')
  }, 150_000)
})

it('sessions unlock: refuses while the holder lives, removes a dead holder', async () => {
  const model = await startModel([{ text: 'hi' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const run = await runCli(['run', '--json', 'hello'], { env: w.env, cwd: w.project })
  const session = jsonLines(run.stdout)[0]!
  const lockPath = `${session.transcriptPath as string}.lock`
  const id = session.sessionId as string

  const free = await runCli(['sessions', 'unlock', id], { env: w.env, cwd: w.project })
  expect(free.stdout).toBe(`session ${id} was not locked\n`)
  writeFileSync(
    lockPath,
    JSON.stringify({
      pid: process.pid,
      hostname: (await import('node:os')).hostname(),
      nonce: 'n',
      acquiredAt: 1,
    }),
  )
  const refused = await runCli(['sessions', 'unlock', id], { env: w.env, cwd: w.project })
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain(`process ${process.pid}`)
  expect(refused.stderr).toContain('still running')
  writeFileSync(
    lockPath,
    JSON.stringify({
      pid: 999_999_999,
      hostname: (await import('node:os')).hostname(),
      nonce: 'n',
      acquiredAt: 1,
    }),
  )
  const unlocked = await runCli(['sessions', 'unlock', id], { env: w.env, cwd: w.project })
  expect(unlocked.code).toBe(0)
  expect(unlocked.stdout).toContain('held by process 999999999')
  expect(existsSync(lockPath)).toBe(false)
})
