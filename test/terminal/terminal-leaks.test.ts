// No terminal leaves a process behind: not when the session's agent stops, not when the
// service unloads, not when `dsh run` is ended with SIGTERM or killed with SIGKILL mid-turn.
// Checked by process group (the terminal's pid leads its own group) and by command line.
// A terminal hangs up when dsh dies even while other children run: none holds its master.

import { readdirSync, readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, makeWorld, spawnCli } from '../apps/cli/cli.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { processesWith } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { startTerminalTestContext, type TerminalTestContext } from './support.js'

const tempDir = useTempDirs()
const startModel = useLoopbackModels()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

/** Live (not zombie) members of process group `pgid`. */
function groupMembers(pgid: number): number[] {
  const members: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) members.push(Number(entry))
    } catch {
      // Gone while we looked.
    }
  }
  return members
}

/** Live `sleep` processes with this argument (the shells around them carry it in their command lines too). */
function sleeps(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0')
    } catch {
      return false
    }
  })
}

const uniqueSleep = () => `9${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}.5`

/** A terminal running a foreground sleep, a background sleep that ignores HUP, and a setsid'd one. */
const stubborn = (sleep: string) =>
  `(trap '' HUP TERM; sleep ${sleep}) & setsid sleep ${sleep} & sleep ${sleep}; echo never`

describe('terminal process cleanup', () => {
  it('kills the whole process group when the session ends, and when the service unloads', async () => {
    const test = await startTerminalTestContext({ home: tempDir() })
    open.push(test)
    const sleep = uniqueSleep()
    const agent = await test.createAgent('leaks-1', tempDir())
    await test.call(agent, 'terminal_start', { command: stubborn(sleep) })
    const pid = test.ctx.get('terminals')!.get({ agentId: agent.id }, 't1')!.pid
    await until(() => sleeps(sleep).length === 3, 10_000, 'three sleeps')
    expect(groupMembers(pid).length).toBeGreaterThan(0)

    await test.ctx.get('agents')!.dispose(agent.id)
    await until(() => sleeps(sleep).length === 0 && groupMembers(pid).length === 0, 10_000, 'no sleeps left')
    expect(test.ctx.get('terminals')!.list()).toEqual([])

    // Unloading the service (the harness shutting down) ends the rest.
    const other = await test.createAgent('leaks-2', tempDir())
    const second = uniqueSleep()
    await test.call(other, 'terminal_start', { command: stubborn(second) })
    await until(() => sleeps(second).length === 3, 10_000, 'three more sleeps')
    await test.dispose()
    open.pop()
    await until(() => sleeps(second).length === 0, 10_000, 'no sleeps after unload')
    expect(test.ctx.get('tools')?.get('terminal_start')).toBeUndefined()
  })
})

describe('dsh run ended mid-turn with a terminal running', () => {
  beforeAll(assertBuilt)

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    '%s leaves no process of the terminal behind',
    async (signal) => {
      const sleep = uniqueSleep()
      // SIGKILL gives dsh no chance to clean up: the closed terminal hangs up its programs,
      // so this one does not ignore HUP (containment after a crash is the orphan report's job).
      const command = signal === 'SIGKILL' ? `sleep ${sleep} & sleep ${sleep}` : stubborn(sleep)
      const model = await startModel([
        { toolCalls: [{ name: 'terminal_start', arguments: { command } }] },
        {
          toolCalls: [
            {
              name: 'terminal_read',
              arguments: { id: 't1', wait_for: 'never-printed', timeout_ms: 600_000 },
            },
          ],
        },
        { text: 'not reached' },
      ])
      const world = makeWorld(tempDir(), model.baseUrl)
      const run = spawnCli(['run', 'start a terminal'], {
        env: world.env,
        cwd: world.project,
        timeoutMs: 40_000,
      })
      const expected = signal === 'SIGKILL' ? 2 : 3
      await until(() => sleeps(sleep).length === expected, 20_000, 'the terminal sleeps')
      run.child.kill(signal)
      const result = await run.done
      if (signal === 'SIGTERM') expect(result.code, result.stderr).toBe(143)
      await until(() => sleeps(sleep).length === 0, 10_000, `no sleeps after ${signal}`)
    },
    60_000,
  )

  it('SIGKILL hangs up the terminal even while a background job started after it runs', async () => {
    const terminalSleep = uniqueSleep()
    const jobSleep = uniqueSleep()
    // The job would hold the terminal's master if it inherited it: no hang-up then.
    const model = await startModel([
      { toolCalls: [{ name: 'terminal_start', arguments: { command: `sleep ${terminalSleep}` } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: `sleep ${jobSleep}`, run_in_background: true } }] },
      {
        toolCalls: [
          { name: 'terminal_read', arguments: { id: 't1', wait_for: 'never-printed', timeout_ms: 600_000 } },
        ],
      },
      { text: 'not reached' },
    ])
    const world = makeWorld(tempDir(), model.baseUrl)
    const run = spawnCli(['run', 'start a terminal and a job'], {
      env: world.env,
      cwd: world.project,
      timeoutMs: 40_000,
    })
    try {
      await until(
        () => sleeps(terminalSleep).length === 1 && sleeps(jobSleep).length === 1,
        20_000,
        'the terminal and the job',
      )
      run.child.kill('SIGKILL')
      await run.done
      await until(() => sleeps(terminalSleep).length === 0, 10_000, "the terminal's hang-up")
    } finally {
      // The job is an orphan of the killed dsh (its report is the next start's business).
      for (const pid of sleeps(jobSleep)) process.kill(pid, 'SIGKILL')
    }
  }, 60_000)
})
