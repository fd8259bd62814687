// The local executor with real bash children: environment order, channel rejection before
// spawn, process-group kills (grandchildren included), output caps and spill files, jobs.

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import {
  buildChildEnv,
  LocalShellExecutor,
  type LocalShellExecutorConfig,
  ShellErrorCode,
  type ShellResult,
  TERMINAL_OVERRIDES,
} from '../../../src/shell/index.js'
import { isLive } from '../../support/processes.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { parseEnvLines, waitUntilGone } from '../support.js'

const tempDir = useTempDirs()
const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

async function startExecutor(config: LocalShellExecutorConfig = {}) {
  const root = new Context()
  const fiber = root.plugin(LocalShellExecutor, config)
  fibers.push(fiber)
  await fiber.await()
  return { shell: root.get('shell')!, fiber }
}

async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
  } catch (error) {
    return isDshError(error) ? error.code : String(error)
  }
  return undefined
}

describe('child environment', () => {
  const saved: Record<string, string | undefined> = {}
  const inherited = { DSH_FOO: 'stale-outer-harness', DSH_SESSION_ID: 'outer-id', SOME_API_KEY: 'sk-leak' }
  beforeEach(() => {
    for (const [name, value] of Object.entries(inherited)) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
  })
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it('builds scrubbed process env, then terminal overrides, then env, then dshEnv', () => {
    const child = buildChildEnv(
      {
        PATH: '/bin',
        TERM: 'xterm',
        DSH_FOO: 'stale',
        my_secret: 's',
        GH_TOKEN: 't',
        Db_Password: 'p',
        X_CREDENTIALS: 'c',
      },
      { PAGER: 'less', EXTRA: '1' },
      { DSH_HOME: '/home' },
    )
    expect(child).toEqual({
      PATH: '/bin',
      ...TERMINAL_OVERRIDES,
      PAGER: 'less',
      EXTRA: '1',
      DSH_HOME: '/home',
    })
  })

  it('gives a real child that environment and never modifies process.env', async () => {
    const { shell } = await startExecutor()
    const before = { ...process.env }
    const result = await shell.run({
      command: 'env',
      env: { ORDINARY: 'yes', TERM: 'from-env' },
      dshEnv: { DSH_HOME: '/managed/home', DSH_SESSION_ID: 'current-id' },
    })
    const seen = parseEnvLines(result.stdout.text)
    expect(seen.DSH_FOO).toBeUndefined()
    expect(seen.SOME_API_KEY).toBeUndefined()
    expect(seen.DSH_SESSION_ID).toBe('current-id')
    expect(seen.DSH_HOME).toBe('/managed/home')
    expect(seen.ORDINARY).toBe('yes')
    expect(seen.TERM).toBe('from-env')
    expect(seen.NO_COLOR).toBe('1')
    expect(seen.PAGER).toBe('cat')
    expect(seen.GIT_PAGER).toBe('cat')
    expect(seen.PATH).toBe(process.env.PATH)
    expect(
      Object.keys(seen)
        .filter((name) => name.startsWith('DSH_'))
        .sort(),
    ).toEqual(['DSH_HOME', 'DSH_SESSION_ID'])
    expect(process.env).toEqual(before)
  })

  it('rejects a key in the wrong channel before anything is spawned', async () => {
    const { shell } = await startExecutor()
    const dir = tempDir()
    const marker = join(dir, 'ran')
    const command = `touch ${marker}`
    expect(await rejection(shell.run({ command, env: { DSH_SESSION_ID: 'x' } }))).toBe(
      ShellErrorCode.WrongChannel,
    )
    expect(await rejection(shell.run({ command, dshEnv: { HOME: '/x' } as never }))).toBe(
      ShellErrorCode.WrongChannel,
    )
    expect(() => shell.start({ command, env: { DSH_X: 'x' } })).toThrow(/managed variable/)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(existsSync(marker)).toBe(false)
    await shell.run({ command })
    expect(existsSync(marker)).toBe(true)
  })
})

describe('foreground runs', () => {
  it('reports exit codes, both streams and the workdir; stdin is /dev/null unless given', async () => {
    const { shell } = await startExecutor()
    const dir = tempDir()
    const result = await shell.run({ command: 'pwd; cat; echo oops >&2; exit 7', workdir: dir })
    expect(result.exitCode).toBe(7)
    expect(result.signal).toBeNull()
    expect(result.timedOut).toBe(false)
    expect(result.stdout.text).toBe(`${dir}\n`)
    expect(result.stderr.text).toBe('oops\n')
    expect(result.workdir).toBe(dir)
    const fed = await shell.run({ command: 'tr a-z A-Z', stdin: 'hello' })
    expect(fed.stdout.text).toBe('HELLO')
  })

  it('rejects a missing workdir with a clear error', async () => {
    const { shell } = await startExecutor()
    const missing = join(tempDir(), 'does-not-exist')
    await expect(shell.run({ command: 'true', workdir: missing })).rejects.toThrow(
      `working directory does not exist: ${missing}`,
    )
    expect(await rejection(shell.run({ command: 'true', workdir: missing }))).toBe(
      ShellErrorCode.WorkdirNotFound,
    )
    const file = join(tempDir(), 'a-file')
    writeFileSync(file, '')
    await expect(shell.run({ command: 'true', workdir: file })).rejects.toThrow(
      `working directory is not a directory: ${file}`,
    )
  })

  it('rejects an unstartable shell', async () => {
    const { shell } = await startExecutor({ shell: '/nonexistent/bash' })
    expect(await rejection(shell.run({ command: 'true' }))).toBe(ShellErrorCode.SpawnFailed)
  })

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const { shell } = await startExecutor({ killGraceMs: 300 })
    const dir = tempDir()
    const started = Date.now()
    const result = await shell.run({
      command: `sleep 60 & echo $! > ${dir}/grandchild; bash -c 'sleep 60' & echo $! > ${dir}/nested; wait`,
      timeoutMs: 1_000,
    })
    expect(result.timedOut).toBe(true)
    expect(result.exitCode).toBeNull()
    expect(result.signal).toBe('SIGTERM')
    expect(result.timeoutMs).toBe(1_000)
    // Not the 60 s of the sleeps (room for a busy machine).
    expect(Date.now() - started).toBeLessThan(30_000)
    for (const file of ['grandchild', 'nested']) {
      const pid = Number(readFileSync(join(dir, file), 'utf8'))
      expect(pid).toBeGreaterThan(0)
      expect(await waitUntilGone(pid)).toBe(true)
    }
  })

  it('follows TERM with KILL after the grace period for processes that ignore TERM', async () => {
    const { shell } = await startExecutor({ killGraceMs: 300 })
    const dir = tempDir()
    const result = await shell.run({
      command: `trap '' TERM; (exec sleep 60) & echo $! > ${dir}/stubborn; wait`,
      timeoutMs: 1_000,
    })
    expect(result.timedOut).toBe(true)
    expect(result.signal).toBe('SIGKILL')
    const pid = Number(readFileSync(join(dir, 'stubborn'), 'utf8'))
    expect(await waitUntilGone(pid)).toBe(true)
  })

  it('leaves no process behind once the shell exits, even one holding the output pipe', async () => {
    const { shell } = await startExecutor({ killGraceMs: 300 })
    const detached = await shell.run({ command: 'sleep 60 >/dev/null 2>&1 & echo $!' })
    const holding = await shell.run({ command: 'sleep 60 & echo $!' })
    expect(holding.durationMs).toBeLessThan(30_000) // not the 60 s of the sleep holding the pipe
    for (const result of [detached, holding]) {
      expect(result.exitCode).toBe(0)
      expect(result.timedOut).toBe(false)
      expect(await waitUntilGone(Number(result.stdout.text.trim()))).toBe(true)
    }
  })

  it('kills the group when the request is aborted', async () => {
    const { shell } = await startExecutor({ killGraceMs: 300 })
    const controller = new AbortController()
    const marker = join(tempDir(), 'started')
    const running = shell.run({
      command: `echo started; touch ${marker}; sleep 60`,
      signal: controller.signal,
    })
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort()
    const result = await running
    expect(result.killed).toBe(true)
    expect(result.timedOut).toBe(false)
    expect(result.stdout.text).toBe('started\n')
    const aborted = await shell.run({ command: 'sleep 60', signal: AbortSignal.abort() })
    expect(aborted.killed).toBe(true)
  })

  it('keeps the tail of huge output and spills each full stream to a private file', async () => {
    const outputDir = tempDir()
    const { shell } = await startExecutor({ maxOutputChars: 1_000 })
    const result = await shell.run({ command: 'seq 1 100000; seq 1 5000 >&2' })
    const full = readFileSync(result.stdout.fullOutputPath!, 'utf8')
    const expected = `${Array.from({ length: 100_000 }, (_, i) => i + 1).join('\n')}\n`
    expect(full).toBe(expected)
    expect(result.stdout.truncated).toBe(true)
    expect(result.stdout.totalChars).toBe(expected.length)
    expect(result.stdout.text).toBe(expected.slice(-1_000))
    expect(result.stderr.truncated).toBe(true)
    expect(readFileSync(result.stderr.fullOutputPath!, 'utf8')).toBe(
      `${Array.from({ length: 5_000 }, (_, i) => i + 1).join('\n')}\n`,
    )
    expect(statSync(result.stdout.fullOutputPath!).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(result.stdout.fullOutputPath!)).mode & 0o777).toBe(0o700)
    const small = await shell.run({ command: 'echo small' })
    expect(small.stdout).toEqual({ text: 'small\n', totalChars: 6, truncated: false })
    // A configured folder is used as given.
    const configured = await startExecutor({ maxOutputChars: 10, outputDir })
    const spilled = await configured.shell.run({ command: 'seq 1 100' })
    expect(dirname(spilled.stdout.fullOutputPath!)).toBe(outputDir)
  })

  it('writes tens of megabytes to the spill file completely while keeping only the tail', async () => {
    const { shell } = await startExecutor({ maxOutputChars: 100 })
    const result = await shell.run({ command: "head -c 30000000 /dev/zero | tr '\\0' a; echo end" })
    expect(result.stdout.totalChars).toBe(30_000_004)
    expect(result.stdout.text).toBe(`${'a'.repeat(96)}end\n`)
    expect(statSync(result.stdout.fullOutputPath!).size).toBe(30_000_004)
  })

  it('caps each spill file, keeping its head, and says in the file and the result what was dropped', async () => {
    const cap = 1024 * 1024
    const { shell } = await startExecutor({ maxOutputChars: 100, maxSpillBytes: cap })
    const command =
      "head -c 5000000 /dev/zero | tr '\\0' a; echo end; head -c 3000000 /dev/zero | tr '\\0' b >&2"
    const check = (result: ShellResult) => {
      expect(result.exitCode).toBe(0)
      expect(result.stdout.totalChars).toBe(5_000_004)
      // The tail is the stream's end, as before.
      expect(result.stdout.text).toBe(`${'a'.repeat(96)}end\n`)
      expect(result.stdout.droppedChars).toBe(5_000_004 - cap)
      const stdout = readFileSync(result.stdout.fullOutputPath!, 'utf8')
      expect(stdout.startsWith('a'.repeat(cap))).toBe(true)
      expect(stdout.slice(cap)).toMatch(
        /^\n\[dsh: .*1 MiB.* the rest of the stream was dropped.*\]\n\[dsh: 3,?\d{3},?\d{3} more characters were dropped\]\n$/,
      )
      expect(result.stderr.droppedChars).toBe(3_000_000 - cap)
      expect(statSync(result.stderr.fullOutputPath!).size).toBeLessThan(cap + 1_000)
    }
    check(await shell.run({ command }))
    // Background jobs too.
    check(await shell.start({ command }).done)
  })

  it('removes its private output folder when it unloads', async () => {
    const { shell, fiber } = await startExecutor({ maxOutputChars: 10 })
    const result = await shell.run({ command: 'seq 1 100' })
    expect(existsSync(result.stdout.fullOutputPath!)).toBe(true)
    await fiber.dispose()
    expect(existsSync(dirname(result.stdout.fullOutputPath!))).toBe(false)
  })
})

describe('background jobs', () => {
  it('returns a handle at once, shows output so far, and kills the group', async () => {
    const { shell } = await startExecutor({ killGraceMs: 300 })
    const dir = tempDir()
    const started = Date.now()
    const job = shell.start({ command: `echo first; sleep 60 & echo $! > ${dir}/child; wait`, workdir: dir })
    expect(Date.now() - started).toBeLessThan(20_000) // at once, not after the 60 s sleep
    expect(job.status).toBe('running')
    expect(job.pid).toBeGreaterThan(0)
    expect(job.workdir).toBe(dir)
    expect(shell.job(job.id)).toBe(job)
    expect(shell.jobs()).toContain(job)
    while (job.output().stdout.text === '') await new Promise((resolve) => setTimeout(resolve, 20))
    expect(job.output().stdout.text).toBe('first\n')
    while (!existsSync(join(dir, 'child'))) await new Promise((resolve) => setTimeout(resolve, 20))
    const child = Number(readFileSync(join(dir, 'child'), 'utf8'))
    const result = await job.kill()
    expect(job.status).toBe('killed')
    expect(result.killed).toBe(true)
    expect(result.timeoutMs).toBeUndefined()
    expect(await waitUntilGone(child)).toBe(true)
    expect(isLive(job.pid)).toBe(false)
  })

  it('has no timeout and finishes on its own', async () => {
    const { shell } = await startExecutor()
    const job = shell.start({ command: 'sleep 0.2; echo done', dshEnv: { DSH_HOME: '/h' } })
    const result = await job.done
    expect(job.status).toBe('exited')
    expect(result.exitCode).toBe(0)
    expect(result.stdout.text).toBe('done\n')
  })

  it('kills every job and running command when the executor unloads, then refuses new work', async () => {
    const { shell, fiber } = await startExecutor({ killGraceMs: 300 })
    const dir = tempDir()
    const job = shell.start({ command: `touch ${dir}/job; sleep 60` })
    const foreground = shell.run({ command: `touch ${dir}/foreground; sleep 60` })
    // Both are running (not merely asked for) when the executor unloads.
    await until(
      () => existsSync(join(dir, 'job')) && existsSync(join(dir, 'foreground')),
      15_000,
      'both commands to start',
    )
    await fiber.dispose()
    expect(job.status).toBe('killed')
    expect((await foreground).killed).toBe(true)
    expect(await waitUntilGone(job.pid)).toBe(true)
    expect(await rejection(shell.run({ command: 'true' }))).toBe(ShellErrorCode.ExecutorClosed)
  })

  it('rejects a missing workdir synchronously', async () => {
    const { shell } = await startExecutor()
    expect(() => shell.start({ command: 'true', workdir: '/nonexistent/dir' })).toThrow(/does not exist/)
  })
})
