// `dsh stdio` as a child process whose client closes dsh's stdout mid-turn (the editor went
// away): the turn is cancelled at once, its command killed, without waiting for a write.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { assertBuilt, spawnCli, useModelWorlds } from '../cli/cli.js'

const start = useModelWorlds(useTempDirs('dsh-stdio-reader-'))

beforeAll(assertBuilt)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

it('a client closing stdout mid-turn cancels the turn and kills its command at once', async () => {
  const world = await start([
    // `exec`: the pid written is the sleep's own.
    { toolCalls: [{ name: 'bash', arguments: { command: 'echo $$ > sleep.pid; exec sleep 300' } }] },
    { text: 'never reached' },
  ])
  const pidFile = join(world.project, 'sleep.pid')
  // Node spawns with a socket pair, as most editors do; stdin stays open (its end would finish the turn).
  const server = spawnCli(['stdio'], { env: world.env, cwd: world.project, openStdin: true })
  const line = (id: number, method: string, params?: unknown) =>
    `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`
  server.child.stdin!.write(line(1, 'initialize', { cwd: world.project }))
  server.child.stdin!.write(line(2, 'session/prompt', { text: 'sleep a while' }))
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 60_000, 'the sleep')
  const pid = Number(readFileSync(pidFile, 'utf8'))
  try {
    server.child.stdout!.destroy()
    const result = await server.done
    expect(result.signal).toBeNull()
    expect(result.code).toBe(0)
    await until(() => !alive(pid), 60_000, 'the sleep to be killed')
  } finally {
    if (alive(pid)) process.kill(pid, 'SIGKILL')
    server.child.stdin!.end()
  }
})
