// No process dsh starts inherits a terminal's pseudo-terminal master (node-pty opens it
// without close-on-exec): not a bash call, a background job, a standby shell, a sandboxed
// call, or a later terminal's program. A master lets its holder type into the terminal, and
// keeps the terminal from hanging up its programs when dsh dies.

import { existsSync, readdirSync, readlinkSync } from 'node:fs'
import { afterEach, describe, expect } from 'vitest'
import type { LocalShellExecutor } from '../../src/shell/index.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { screenOf, startTerminalTestContext, type TerminalTestContext } from './support.js'

const tempDir = useTempDirs()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

const onLinux = itRequires(process.platform === 'linux', 'Linux /proc')
const withBwrap = itRequires(existsSync('/usr/bin/bwrap'), 'bubblewrap (/usr/bin/bwrap)')

/** Prints how many of the shell's own descriptors are pseudo-terminal masters. */
const COUNT_MASTERS =
  'n=0; for f in /proc/$$/fd/*; do case $(readlink "$f") in *ptmx*) n=$((n+1));; esac; done; echo "masters=$n"'

function mastersOf(pid: number): string[] {
  const found: string[] = []
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).includes('ptmx')) found.push(fd)
    } catch {
      // Closed while we looked.
    }
  }
  return found
}

async function withTerminals(executor: Parameters<typeof startTerminalTestContext>[0]['executor'] = {}) {
  const test = await startTerminalTestContext({ home: tempDir(), executor })
  open.push(test)
  const agent = await test.createAgent('fds', tempDir())
  await test.call(agent, 'terminal_start', { command: 'bash --norc --noprofile -i', ready: '[$#] $' })
  await test.call(agent, 'terminal_start', { command: 'bash --norc --noprofile -i', ready: '[$#] $' })
  return { test, agent }
}

describe("terminals' master descriptors", () => {
  onLinux('reach no bash call, background job, standby shell or later terminal', async () => {
    const { test, agent } = await withTerminals({ standbyAfterMs: 0 })
    const shell = test.ctx.get('shell')! as LocalShellExecutor
    const run = await shell.run({ command: COUNT_MASTERS, workdir: agent.cwd })
    expect(run.stdout.text).toBe('masters=0\n')
    const job = shell.start({ command: `${COUNT_MASTERS}; sleep 0.2`, workdir: agent.cwd })
    const done = await job.done
    expect(done.stdout.text).toBe('masters=0\n')
    // The second terminal's program started while the first one's master was open.
    await test.call(agent, 'terminal_send', { id: 't2', text: `${COUNT_MASTERS}\n` })
    expect(screenOf(await test.call(agent, 'terminal_read', { id: 't2', wait_for: '^masters=' }))).toMatch(
      /^masters=0$/m,
    )
    // A standby shell started while both were open (where calls get a cgroup).
    if (shell.standby) {
      await until(() => shell.standby!.waitingPid !== undefined, 10_000, 'a standby shell')
      expect(mastersOf(shell.standby.waitingPid!)).toEqual([])
    }
  })

  withBwrap('reach no sandboxed call', async () => {
    const home = tempDir()
    const { test, agent } = await withTerminals({
      sandbox: { mode: 'workspace-write', network: true, home },
    })
    const run = await test.ctx.get('shell')!.run({
      command: COUNT_MASTERS,
      workdir: agent.cwd,
      projectRoot: agent.cwd,
    })
    expect(run.stdout.text).toBe('masters=0\n')
  })
})
