// Hooks that misbehave: one sleeping past its timeout, one printing megabytes, and hooks
// still running when their bridge unloads. None may stall or exhaust the harness, and a
// killed hook takes its whole process group (a grandchild it started) with it.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEventMap } from '../../src/session/index.js'
import { isLive, processesWith } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { oneHook, type Rig, useRigs, writeScript } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-resources-')
const rig = useRigs('claude-code')

const echoCall = (text: string) => ({ toolCalls: [{ name: 'bash', arguments: { command: `echo ${text}` } }] })

/**
 * Waits until the hook's shell (`pid`) and its sleeping child are gone; fails after 10 s, as
 * it would for a hook that was never killed (its sleep lasts a minute or more).
 */
async function gone(pid: number, grandchildren: () => number[]): Promise<void> {
  await until(() => !isLive(pid), 10_000, `the hook's shell ${pid} to be gone`)
  await until(() => grandchildren().length === 0, 10_000, "the hook's sleep to be gone")
}

let nextToken = 0

/**
 * A hook that records its shell's pid and starts a grandchild, `sleep <token>`, that stays
 * in its process group: killing only the shell would leave the grandchild running.
 */
function writeHangingHook(dir: string) {
  const token = `${60 + (process.pid % 100)}.${Date.now() % 100_000}${nextToken++}`
  const pidFile = join(dir, 'pid')
  const hook = writeScript(
    dir,
    'hang.sh',
    // The pid first: a hook killed at its timeout on a busy machine may not get further.
    `echo $$ > ${JSON.stringify(pidFile)}\ncat >/dev/null\nsleep ${token} &\nwait`,
  )
  const grandchildren = () => processesWith(`sleep\u0000${token}\u0000`)
  return { hook, pidFile, grandchildren }
}

function hookResults(rig: Rig, id: string) {
  return rig.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'hook/result')
    .map((event) => event.data as SessionEventMap['hook/result'])
}

describe('misbehaving hooks', () => {
  it('a hook sleeping past its timeout is killed and the turn goes on', async () => {
    const dir = tempDir()
    const { hook, pidFile, grandchildren } = writeHangingHook(dir)
    const r = await rig({
      dir,
      script: [echoCall('tool-ran'), { text: 'ok' }],
      // Long enough for the hook to start and write its pid on a busy machine (1 s once was not).
      hooks: oneHook('PreToolUse', hook, { timeout: 5 }),
    })
    const agent = await r.agents.create({ sessionId: 'slow', meta: { cwd: r.cwd } })
    const started = Date.now()
    const result = await agent.prompt('go')
    // Ended by the timeout, not by the hook's sleep (60 s or more).
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(result.reason).toBe('completed')
    expect(JSON.stringify(r.model.requests[1])).toContain('tool-ran')
    expect(hookResults(r, agent.id)[0]).toMatchObject({ decision: 'error', timedOut: true, exitCode: null })
    // The whole process group went, not only the hook's shell: each member dies as it is scheduled.
    await gone(Number(readFileSync(pidFile, 'utf8')), grandchildren)
    expect(
      r.warnings.some((warning) => warning.includes('HOOK_FAILED') && warning.includes('timed out')),
    ).toBe(true)
  })

  it('a hook printing megabytes does not exhaust memory; only the capped output is parsed', async () => {
    const dir = tempDir()
    const megabytes = 160
    const hook = writeScript(
      dir,
      'loud.sh',
      `cat >/dev/null\nhead -c ${megabytes * 1024 * 1024} /dev/zero | tr '\\0' '{'\necho "loud" >&2\nexit 0`,
    )
    const r = await rig({
      dir,
      script: [echoCall('after-loud'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: 'loud', meta: { cwd: r.cwd } })
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 10)
    try {
      const result = await agent.prompt('go')
      expect(result.reason).toBe('completed')
    } finally {
      clearInterval(sampler)
    }
    // Buffering the whole output would need at least its size again; the executor keeps a tail.
    expect(peak - before).toBeLessThan(megabytes * 1024 * 1024)
    expect(JSON.stringify(r.model.requests[1])).toContain('after-loud')
    // The capped tail is not a JSON object: a warning, no decision.
    expect(hookResults(r, agent.id)[0]).toMatchObject({ decision: 'none', exitCode: 0, stderr: 'loud' })
    expect(r.warnings.some((warning) => warning.includes('HOOK_BAD_OUTPUT'))).toBe(true)
  })

  it('unloading a bridge kills its running hooks and removes its listeners', async () => {
    const dir = tempDir()
    const { hook, pidFile, grandchildren } = writeHangingHook(dir)
    const r = await rig({
      dir,
      script: [echoCall('first'), { text: 'one' }, echoCall('second'), { text: 'two' }],
      hooks: { ...oneHook('PreToolUse', hook), ...oneHook('Stop', hook) },
    })
    const agent = await r.agents.create({ sessionId: 'unload', meta: { cwd: r.cwd } })
    const turn = agent.prompt('go')
    await until(() => existsSync(pidFile), 15_000, 'the hook to start')
    const pid = Number(readFileSync(pidFile, 'utf8'))
    expect(isLive(pid)).toBe(true)
    await until(() => grandchildren().length === 1, 15_000, "the hook's sleep to start")
    const unloaded = Date.now()
    await r.bridge.dispose()
    const result = await turn
    expect(Date.now() - unloaded).toBeLessThan(30_000)
    expect(result.reason).toBe('completed')
    await gone(pid, grandchildren)
    expect(hookResults(r, agent.id)).toMatchObject([{ event: 'PreToolUse', decision: 'error' }])

    const countHookEvents = () =>
      agent.session.events.filter((event) => event.type.startsWith('hook/')).length
    const hookEventsBefore = countHookEvents()
    await agent.prompt('again')
    expect(countHookEvents()).toBe(hookEventsBefore)
    expect(JSON.stringify(r.model.requests[3])).toContain('second')
  })

  it('cancelling a turn kills its running hook at once and ends the turn aborted', async () => {
    const dir = tempDir()
    const { hook, pidFile, grandchildren } = writeHangingHook(dir)
    const r = await rig({
      dir,
      script: [echoCall('never'), { text: 'unused' }],
      hooks: oneHook('PreToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: 'cancel-hook', meta: { cwd: r.cwd } })
    const turn = agent.prompt('go')
    await until(() => existsSync(pidFile), 15_000, 'the hook to start')
    const pid = Number(readFileSync(pidFile, 'utf8'))
    await until(() => grandchildren().length === 1, 15_000, "the hook's sleep to start")
    const cancelled = Date.now()
    agent.cancel()
    const result = await turn
    expect(Date.now() - cancelled).toBeLessThan(30_000)
    expect(result.reason).toBe('aborted')
    await gone(pid, grandchildren)
  })
})
