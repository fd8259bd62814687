// A late signal to a process group must reach only the group dsh started: once a group has
// emptied its id can be given to an unrelated process group (a browser, another shell).

import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { groupAlive, signalOwnGroup } from '../../../src/shell/local/process-group.js'
import { processStartTicks } from '../../../src/shell/local/running-calls.js'
import { until } from '../../support/until.js'

function startGroup() {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return { pid: child.pid!, exited }
}

describe('signalOwnGroup', () => {
  it('leaves alone a group whose leader pid now names a process started at another time', async () => {
    const other = startGroup()
    const ticks = processStartTicks(other.pid)!
    // As if this pid had been ours earlier and was given out again: another start time.
    expect(signalOwnGroup(other.pid, ticks - 1, 'SIGKILL')).toBe(false)
    expect(groupAlive(other.pid)).toBe(true)
    // The very leader that was started: signalled.
    expect(signalOwnGroup(other.pid, ticks, 'SIGKILL')).toBe(true)
    await other.exited
    await until(() => !groupAlive(other.pid), 5_000, 'the group to end')
  })

  it('signals members left without their leader (the id cannot be reused while they live)', async () => {
    const shell = spawn('sh', ['-c', 'sleep 30 & echo $!'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const leaderTicks = processStartTicks(shell.pid!)
    const member = await new Promise<number>((resolve) =>
      shell.stdout!.once('data', (data) => resolve(Number(String(data).trim()))),
    )
    await new Promise((resolve) => shell.once('exit', resolve))
    expect(processStartTicks(shell.pid!)).toBeNull()
    expect(signalOwnGroup(shell.pid!, leaderTicks, 'SIGKILL')).toBe(true)
    await until(() => processStartTicks(member) === null, 5_000, 'the member to end')
  })
})
