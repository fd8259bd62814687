// Process containment of `dsh run` without the sandbox (issue 24, item 4): a bash call
// starts `setsid sleep` and `nohup sleep` (and a background job does too); after SIGINT,
// SIGTERM or SIGHUP of dsh none of them runs. After a SIGKILL of dsh the next start
// reports the orphaned commands (one line naming the session and pids), and kills them
// with `orphanedCommands: kill`.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, runCli, spawnCli, useModelWorlds } from '../apps/cli/cli.js'
import { processesWith } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { reportFigure, sized } from './size.js'

const TRIALS = sized({ ci: 2, full: 10 })
const makeDir = useTempDirs('dsh-rel-contain-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

/** A first step that escapes the process group twice, in a job and in a foreground call, both holding. */
function escapingStep(tag: string, marker: string) {
  return {
    toolCalls: [
      {
        name: 'bash',
        arguments: {
          command: `setsid sleep 7${tag}.1 & nohup sleep 7${tag}.2 >/dev/null 2>&1 & wait`,
          run_in_background: true,
        },
      },
      {
        name: 'bash',
        arguments: {
          command: `setsid sleep 7${tag}.3 & nohup sleep 7${tag}.4 >/dev/null 2>&1 & touch ${marker}; sleep 7${tag}.5`,
        },
      },
    ],
  }
}

const SLEEPS = ['1', '2', '3', '4', '5']
const running = (tag: string) => SLEEPS.filter((n) => processesWith(`7${tag}.${n}`).length > 0)

describe.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('dsh run ended by %s', (signal, exitCode) => {
  it(`leaves no setsid or nohup child running (${TRIALS} trials)`, async () => {
    const begun = Date.now()
    let leftAtExit = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      const tag = String(Math.floor(Math.random() * 1e6)).padStart(6, '0')
      const at = { marker: '' }
      const w = await startWorld([() => escapingStep(tag, at.marker), { text: 'not reached' }])
      const marker = join(w.project, 'started')
      at.marker = marker
      try {
        const run = spawnCli(['run', 'escape'], { env: w.env, cwd: w.project, timeoutMs: 40_000 })
        await until(() => existsSync(marker), 20_000, 'the foreground command')
        await until(() => running(tag).length === SLEEPS.length, 20_000, 'every sleep')
        run.child.kill(signal)
        const result = await run.done
        // Counted once dsh has exited (a /proc scan by command line, zombies left out).
        leftAtExit += running(tag).length
        expect(result.code, result.stderr).toBe(exitCode)
        // Killed before dsh exits; at most the kernel's reaping is left.
        await until(() => running(tag).length === 0, 2_000, `sleeps ${running(tag).join(',')} to end`)
        expect(running(tag)).toEqual([])
      } finally {
        // A failed trial must not leave its sleeps to the next one.
        for (const n of SLEEPS) for (const pid of processesWith(`7${tag}.${n}`)) process.kill(pid, 'SIGKILL')
      }
    }
    reportFigure(`containment ${signal}`, {
      trials: TRIALS,
      escapees: TRIALS * 4,
      leaked: 0,
      seenAtExit: leftAtExit,
      ms: Date.now() - begun,
    })
  }, 120_000)
})

describe('dsh run killed with SIGKILL', () => {
  it.each(['report', 'kill'] as const)(
    'the next start names the orphaned commands (orphanedCommands: %s)',
    async (setting) => {
      const begun = Date.now()
      const tag = String(Math.floor(Math.random() * 1e6)).padStart(6, '0')
      const at = { marker: '' }
      const w = await startWorld(
        [() => escapingStep(tag, at.marker), { text: 'second run' }, { text: 'third run' }],
        { config: setting === 'kill' ? 'orphanedCommands: kill\n' : '' },
      )
      const marker = join(w.project, 'started')
      at.marker = marker
      const run = spawnCli(['run', '--session-id', 'killed-session', 'escape'], {
        env: w.env,
        cwd: w.project,
        timeoutMs: 40_000,
      })
      try {
        await until(() => existsSync(marker), 20_000, 'the foreground command')
        await until(() => running(tag).length === SLEEPS.length, 20_000, 'every sleep')
        run.child.kill('SIGKILL')
        await run.done
        expect(running(tag)).toEqual(SLEEPS) // nothing cleaned up after a SIGKILL
        const next = await runCli(['run', 'hello'], { env: w.env, cwd: w.project, timeoutMs: 40_000 })
        expect(next.code, next.stderr).toBe(0)
        const lines = next.stderr.split('\n').filter((line) => line.startsWith('dsh: orphaned command'))
        // One line per call: the job and the foreground command.
        expect(lines, next.stderr).toHaveLength(2)
        for (const line of lines) {
          expect(line).toContain('session "killed-session"')
          expect(line).toMatch(/pid \d+/)
          expect(line).toContain(setting === 'kill' ? ': killed' : 'left running')
        }
        expect(lines.join('\n')).toContain(`setsid sleep 7${tag}.1`)
        expect(lines.join('\n')).toContain(`setsid sleep 7${tag}.3`)
        if (setting === 'kill') await until(() => running(tag).length === 0, 5_000, 'the orphans to end')
        else expect(running(tag)).toEqual(SLEEPS)
        // Reported once: the start after that is quiet.
        const third = await runCli(['run', 'hello'], { env: w.env, cwd: w.project, timeoutMs: 40_000 })
        expect(third.stderr).not.toContain('orphaned command')
      } finally {
        for (const n of SLEEPS) for (const pid of processesWith(`7${tag}.${n}`)) process.kill(pid, 'SIGKILL')
      }
      reportFigure(`containment SIGKILL ${setting}`, {
        orphanedCalls: 2,
        reported: 2,
        ms: Date.now() - begun,
      })
    },
    120_000,
  )
})
