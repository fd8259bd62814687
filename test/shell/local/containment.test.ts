// Process containment without the sandbox, with real bash children: what a command starts
// with setsid, nohup or a double fork does not outlive its call — at its end, timeout,
// abort, job kill and unload — with a cgroup and with tracking (issue 24, item 4).

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect } from 'vitest'
import { LocalShellExecutor, type LocalShellExecutorConfig } from '../../../src/shell/index.js'
import {
  cgroupPopulated,
  createExecutorCgroup,
  ownCgroupFolder,
  removeCgroup,
} from '../../../src/shell/local/cgroup.js'
import { sweepOrphanedCalls } from '../../../src/shell/local/running-calls.js'
import { isLive } from '../../support/processes.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'

const tempDir = useTempDirs('dsh-contain-')
const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

const probe = process.platform === 'linux' ? createExecutorCgroup() : undefined
if (probe) removeCgroup(probe)
const onLinux = itRequires(process.platform === 'linux', 'Linux /proc')
const withCgroup = itRequires(probe !== undefined, 'a writable cgroup v2')

async function startExecutor(config: LocalShellExecutorConfig) {
  const root = new Context()
  const fiber = root.plugin(LocalShellExecutor, { killGraceMs: 500, ...config })
  fibers.push(fiber)
  await fiber.await()
  return { shell: root.get('shell')! as LocalShellExecutor, fiber, root }
}

/** Starts escapees of every kind; each writes its pid to `<dir>/<name>`. */
function escapees(dir: string, withEnvI: boolean): string {
  return [
    `setsid sleep 300 & echo $! > ${dir}/setsid`,
    `nohup sleep 300 >/dev/null 2>&1 & echo $! > ${dir}/nohup`,
    `(setsid sh -c 'echo $$ > ${dir}/double; exec sleep 300' &)`,
    // Without the marker variable: only a cgroup holds it once its parent is gone.
    ...(withEnvI ? [`(env -i setsid sh -c 'echo $$ > ${dir}/envi; exec sleep 300' &)`] : []),
  ].join('; ')
}

function pidsIn(dir: string, names: readonly string[]): number[] {
  return names.map((name) => Number(readFileSync(join(dir, name), 'utf8')))
}

async function waitForFiles(dir: string, names: readonly string[]): Promise<void> {
  await until(
    () =>
      names.every(
        (name) => existsSync(join(dir, name)) && readFileSync(join(dir, name), 'utf8').trim() !== '',
      ),
    10_000,
    'pid files',
  )
}

async function expectAllGone(pids: readonly number[]): Promise<void> {
  await until(() => pids.every((pid) => !isLive(pid)), 10_000, `pids ${pids.join(', ')} to end`)
}

for (const mode of ['cgroup', 'tracking'] as const) {
  const it = mode === 'cgroup' ? withCgroup : onLinux
  const names = mode === 'cgroup' ? ['setsid', 'nohup', 'double', 'envi'] : ['setsid', 'nohup', 'double']
  describe(`containment by ${mode}`, () => {
    it('a finished call leaves nothing running, and its record is gone', async () => {
      const home = tempDir()
      const dir = tempDir()
      const { shell } = await startExecutor({ containment: mode, home })
      expect(shell.containment.kind).toBe(mode)
      const result = await shell.run({
        command: `${escapees(dir, mode === 'cgroup')}; sleep 0.2; echo started`,
      })
      expect(result.stdout.text).toBe('started\n')
      const pids = pidsIn(dir, names)
      await expectAllGone(pids)
      await until(() => readdirSync(join(home, 'running')).length === 0, 10_000, 'the record to go')
    })

    it('abort, timeout and job_kill end every escapee; so does unloading', async () => {
      const { shell, fiber } = await startExecutor({ containment: mode })
      const ended: number[][] = []
      // Abort.
      const abortDir = tempDir()
      const controller = new AbortController()
      const aborted = shell.run({
        command: `${escapees(abortDir, false)}; sleep 300`,
        signal: controller.signal,
      })
      await waitForFiles(abortDir, ['setsid', 'nohup', 'double'])
      controller.abort()
      expect((await aborted).killed).toBe(true)
      ended.push(pidsIn(abortDir, ['setsid', 'nohup', 'double']))
      // Timeout.
      const timeoutDir = tempDir()
      const timedOut = await shell.run({
        command: `${escapees(timeoutDir, false)}; sleep 300`,
        timeoutMs: 1_500,
      })
      expect(timedOut.timedOut).toBe(true)
      ended.push(pidsIn(timeoutDir, ['setsid', 'nohup', 'double']))
      // A background job killed.
      const jobDir = tempDir()
      const job = shell.start({ command: `${escapees(jobDir, false)}; sleep 300` })
      await waitForFiles(jobDir, ['setsid', 'nohup', 'double'])
      await job.kill()
      ended.push(pidsIn(jobDir, ['setsid', 'nohup', 'double']))
      await expectAllGone(ended.flat())
      // Unload with a job running.
      const unloadDir = tempDir()
      shell.start({ command: `${escapees(unloadDir, false)}; sleep 300` })
      await waitForFiles(unloadDir, ['setsid', 'nohup', 'double'])
      await fiber.dispose()
      await expectAllGone(pidsIn(unloadDir, ['setsid', 'nohup', 'double']))
    })

    it('a record whose dsh is gone is reported once, and killed when asked', async () => {
      const home = tempDir()
      const dir = tempDir()
      const { shell } = await startExecutor({ containment: mode, home })
      shell.start({ command: `${escapees(dir, false)}; sleep 300` })
      await waitForFiles(dir, ['setsid', 'nohup', 'double'])
      const pids = pidsIn(dir, ['setsid', 'nohup', 'double'])
      // Its own dsh is alive: not an orphan.
      expect(sweepOrphanedCalls(home, { kill: true })).toEqual([])
      // Make the record look like a dead dsh's (a pid that cannot exist).
      const [name] = readdirSync(join(home, 'running'))
      const path = join(home, 'running', name!)
      const record = JSON.parse(readFileSync(path, 'utf8'))
      record.dsh = { pid: 2 ** 22 + 1, startTicks: 1 }
      await import('node:fs').then((fs) => fs.writeFileSync(path, JSON.stringify(record)))
      const [orphan, ...rest] = sweepOrphanedCalls(home, { kill: true })
      expect(rest).toEqual([])
      expect(orphan!.record.command).toContain('setsid sleep 300')
      expect(orphan!.killed).toBe(true)
      for (const pid of pids) expect(orphan!.pids).toContain(pid)
      await expectAllGone(pids)
      expect(sweepOrphanedCalls(home, { kill: true })).toEqual([])
    })

    it('an orphan reported and left running is still killed by a later start that asks', async () => {
      const home = tempDir()
      const dir = tempDir()
      const { shell } = await startExecutor({ containment: mode, home })
      shell.start({ command: `${escapees(dir, false)}; sleep 300` })
      await waitForFiles(dir, ['setsid', 'nohup', 'double'])
      const pids = pidsIn(dir, ['setsid', 'nohup', 'double'])
      const [name] = readdirSync(join(home, 'running'))
      const path = join(home, 'running', name!)
      const record = JSON.parse(readFileSync(path, 'utf8'))
      record.dsh = { pid: 2 ** 22 + 1, startTicks: 1 }
      writeFileSync(path, JSON.stringify(record))
      const [reported, ...rest] = sweepOrphanedCalls(home, { kill: false })
      expect(rest).toEqual([])
      expect(reported!.killed).toBe(false)
      for (const pid of pids) expect(isLive(pid)).toBe(true)
      // Reported once: a start that only reports is quiet about it after that.
      expect(sweepOrphanedCalls(home, { kill: false })).toEqual([])
      // The advice works: a start with `orphanedCommands: kill` still finds and ends them.
      const [killed] = sweepOrphanedCalls(home, { kill: true })
      expect(killed!.killed).toBe(true)
      for (const pid of pids) expect(killed!.pids).toContain(pid)
      await expectAllGone(pids)
      expect(readdirSync(join(home, 'running'))).toEqual([])
    })
  })
}

describe('a call cgroup joined by bash itself (one exec fewer than the sh wrapper)', () => {
  /** The cgroup a shell's own process is in, as the command prints it. */
  const ownCgroup =
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a JS template
    'while read -r line; do case $line in 0::*) printf "%s\\n" "${line#0::}" ;; esac; done < /proc/$$/cgroup'

  withCgroup('bash is in its call cgroup before the command runs; line numbers are unchanged', async () => {
    const { shell } = await startExecutor({ containment: 'cgroup' })
    const result = await shell.run({ command: `${ownCgroup}\nno-such-command-here` })
    expect(result.stdout.text).toMatch(/\/call-[^/\n]+\n$/)
    // The join shares the first line: bash still counts the command's lines from 1.
    expect(result.stderr.text).toContain('line 2: no-such-command-here: command not found')
  })

  withCgroup('where the environment could run code first, the sh wrapper joins instead', async () => {
    const { shell } = await startExecutor({ containment: 'cgroup' })
    const dir = tempDir()
    // BASH_ENV is sourced before the script: it must already be inside the call cgroup.
    const bashEnv = join(dir, 'bash-env.sh')
    writeFileSync(bashEnv, `${ownCgroup} > ${dir}/sourced\n`)
    const sourced = await shell.run({ command: 'true', env: { BASH_ENV: bashEnv } })
    expect(sourced.exitCode).toBe(0)
    expect(readFileSync(join(dir, 'sourced'), 'utf8')).toMatch(/\/call-[^/\n]+\n$/)
    // An exported function named `echo` would answer the join in bash's place.
    const shadowed = await shell.run({ command: ownCgroup, env: { 'BASH_FUNC_echo%%': '() { :; }' } })
    expect(shadowed.stdout.text).toMatch(/\/call-[^/\n]+\n$/)
  })
})

describe('removing a call cgroup', () => {
  withCgroup(
    'goes at once when empty, stays while a process is in it or below it, and takes empty cgroups below with it',
    async () => {
      const empty = createExecutorCgroup()!
      expect(removeCgroup(empty)).toBe(true)
      expect(existsSync(empty)).toBe(false)
      expect(removeCgroup(empty)).toBe(true) // already gone

      const folder = createExecutorCgroup()!
      const below = join(folder, 'made-by-the-command')
      const deeper = join(below, 'deeper')
      mkdirSync(deeper, { recursive: true })
      const child = spawn(
        '/bin/sh',
        ['-c', 'echo $$ > "$1" && exec sleep 300', 'sh', join(deeper, 'cgroup.procs')],
        {
          stdio: 'ignore',
        },
      )
      await until(() => readFileSync(join(deeper, 'cgroup.procs'), 'utf8').trim() !== '', 10_000, 'the join')
      expect(removeCgroup(folder)).toBe(false)
      expect(existsSync(deeper)).toBe(true)
      const exited = new Promise((resolve) => child.on('exit', resolve))
      child.kill('SIGKILL')
      await exited
      await until(() => removeCgroup(folder), 10_000, 'the cgroups to go')
      expect(existsSync(folder)).toBe(false)
    },
  )
})

describe('deciding on a cgroup in the background', () => {
  /** This process's executor folders (`dsh-<pid>-<n>`) that exist now. */
  const executorFolders = () =>
    readdirSync(ownCgroupFolder()!).filter((name) => name.startsWith(`dsh-${process.pid}-`))

  withCgroup(
    'an executor probes once while the model answers; its first call runs in that folder',
    async () => {
      const before = executorFolders()
      const { shell, root } = await startExecutor({ containment: 'auto' })
      root.emit('llm/answering')
      expect(executorFolders().length).toBe(before.length + 1) // the probe's folder, made at once
      await shell.containment.ready()
      const probed = executorFolders().filter((name) => !before.includes(name))
      expect(probed).toHaveLength(1)
      const result = await shell.run({ command: 'cat /proc/self/cgroup' })
      expect(result.stdout.text).toContain(`/${probed[0]}/call-`)
      // No second probe: the call used the folder the background one kept.
      expect(executorFolders().filter((name) => !before.includes(name))).toEqual(probed)
    },
  )

  withCgroup('a probe under way when the executor goes leaves no folder behind', async () => {
    const before = executorFolders()
    // Unloading waits for it.
    const unloaded = await startExecutor({ containment: 'auto' })
    unloaded.shell.containment.warmUp()
    await unloaded.fiber.dispose()
    expect(executorFolders()).toEqual(before)
    unloaded.root.emit('llm/answering') // gone with the executor: no probe
    expect(executorFolders()).toEqual(before)
    // At process exit nothing can wait: dispose removes the folder of the probe at once.
    const exiting = await startExecutor({ containment: 'auto' })
    exiting.shell.containment.warmUp()
    exiting.shell.containment.dispose(1_000)
    expect(executorFolders()).toEqual(before)
    await exiting.shell.containment.ready()
    expect(executorFolders()).toEqual(before)
  })

  withCgroup(
    'exiting while the probe joins (the kernel holds the join a while) leaves no folder',
    async () => {
      const before = executorFolders()
      // The probe's `sh` holds the cgroup lock while the kernel makes its join wait, and a
      // removal meanwhile waits for the lock and then finds it inside. Exit at each moment of
      // the first 25 ms after the probe starts, one executor per moment.
      for (let delayMs = 0; delayMs < 25; delayMs++) {
        const exiting = await startExecutor({ containment: 'auto' })
        exiting.shell.containment.warmUp()
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delayMs)
        exiting.shell.containment.dispose(5_000)
        expect({ delayMs, left: executorFolders() }).toEqual({ delayMs, left: before })
        await exiting.shell.containment.ready()
      }
    },
  )
})

describe('a standby shell (the next command started ahead of time)', () => {
  /** An executor whose standby starts right after each call, and the pid of the one that waits. */
  async function withStandby(config: LocalShellExecutorConfig = {}) {
    const started = await startExecutor({ containment: 'cgroup', standbyAfterMs: 0, ...config })
    const standby = started.shell.standby!
    const waiting = async () => {
      await until(() => standby.waitingPid !== undefined, 10_000, 'a standby shell')
      return standby.waitingPid!
    }
    return { ...started, waiting }
  }

  /** Runs `env -0` and a line of facts in `workdir`; answers them and the environment (without the call's marker). */
  async function describeCall(shell: LocalShellExecutor, workdir: string, out: string) {
    const result = await shell.run({
      command: `printf '%s|%s|%s|%s\\n' "$$" "$LINENO" "$(pwd)" "$0"\nenv -0 > ${out}\nexit 3`,
      workdir,
      env: { TEST_VALUE: "it's\nquoted $HOME `x`" },
    })
    const env = readFileSync(out, 'utf8')
      .split('\0')
      .filter((entry) => entry !== '' && !entry.startsWith('__DSH_CALL_'))
      .sort()
    return { result, facts: result.stdout.text.trim().split('|'), env }
  }

  withCgroup(
    'runs the command as a direct spawn would: environment, workdir, exit code, line numbers',
    async () => {
      const dir = tempDir()
      const workdir = join(dir, "a dir with 'quotes'")
      mkdirSync(workdir)
      const direct = await startExecutor({ containment: 'cgroup', standbyAfterMs: false })
      expect(direct.shell.standby).toBeUndefined()
      const { shell, waiting } = await withStandby()
      await shell.run({ command: 'true' }) // the first call spawns; a standby follows it
      const pid = await waiting()
      // Without the variables bash sets for itself, so that none of the standby's own can hide.
      const saved = { PWD: process.env.PWD, OLDPWD: process.env.OLDPWD, SHLVL: process.env.SHLVL }
      delete process.env.PWD
      delete process.env.OLDPWD
      delete process.env.SHLVL
      let expected: Awaited<ReturnType<typeof describeCall>>
      let viaStandby: typeof expected
      try {
        expected = await describeCall(direct.shell, workdir, join(dir, 'direct-env'))
        viaStandby = await describeCall(shell, workdir, join(dir, 'standby-env'))
      } finally {
        Object.assign(process.env, saved)
      }
      expect(viaStandby.facts[0]).toBe(String(pid)) // the standby became the command's shell
      expect(viaStandby.facts.slice(1)).toEqual(['1', workdir, expected.facts[3]])
      expect(viaStandby.facts.slice(1)).toEqual(expected.facts.slice(1))
      expect(viaStandby.result.exitCode).toBe(3)
      expect(viaStandby.env).toEqual(expected.env)
      expect(viaStandby.env).toContain("TEST_VALUE=it's\nquoted $HOME `x`")
      // The shell still refuses what it always refused, and keeps the standby for the next call.
      const next = await waiting()
      const missing = join(dir, 'missing')
      await expect(shell.run({ command: 'true', workdir: missing })).rejects.toThrow(
        `working directory does not exist: ${missing}`,
      )
      // A command with stdin gets a shell of its own (the standby's stdin is closed).
      const fed = await shell.run({ command: 'tr a-z A-Z', stdin: 'hello' })
      expect(fed.stdout.text).toBe('HELLO')
      expect(shell.standby!.waitingPid).toBe(next)
    },
  )

  withCgroup('is not started while a call runs that came before it was due', async () => {
    // Due a minute after each call: nothing starts by itself during the test.
    const { shell } = await startExecutor({ containment: 'cgroup', standbyAfterMs: 60_000 })
    const standby = shell.standby!
    await shell.run({ command: 'true' })
    expect(standby.due).toBe(true)
    const dir = tempDir()
    const [started, release] = [join(dir, 'started'), join(dir, 'release')]
    const running = shell.run({
      command: `: > '${started}'; while [ ! -e '${release}' ]; do sleep 0.02; done`,
    })
    await until(() => existsSync(started), 10_000, 'the second call')
    // The second call cancelled the start that was due: it would have forked beside the command.
    expect(standby.due).toBe(false)
    expect(standby.waitingPid).toBeUndefined()
    writeFileSync(release, '')
    await running
    expect(standby.due).toBe(true)
  })

  withCgroup('exiting while a standby joins its call cgroup leaves no folder', async () => {
    const own = ownCgroupFolder()!
    const before = readdirSync(own).filter((name) => name.startsWith(`dsh-${process.pid}-`))
    // Exit (as the exit handler does: close, kill, dispose) at each moment of the first 25 ms
    // of a standby's join.
    for (let delayMs = 0; delayMs < 25; delayMs++) {
      const { shell } = await startExecutor({ containment: 'cgroup', standbyAfterMs: 100 })
      await shell.run({ command: 'true' })
      // The standby starts after a pause, as after a model's reply: its join then waits for the
      // kernel. Its pid is known right after the spawn.
      while (shell.standby!.waitingPid === undefined) await new Promise((resolve) => setImmediate(resolve))
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delayMs)
      shell.standby!.close()
      shell.containment.killAll()
      shell.containment.dispose(5_000)
      const left = readdirSync(own).filter((name) => name.startsWith(`dsh-${process.pid}-`))
      expect({ delayMs, left }).toEqual({ delayMs, left: before })
    }
  })

  withCgroup(
    'is in its call cgroup before the command, and nothing the command starts outlives it',
    async () => {
      const { shell, waiting } = await withStandby()
      await shell.run({ command: 'true' })
      const pid = await waiting()
      // In a call cgroup of its own while it waits, before any command: the command pays no
      // join. (Its pid is known at spawn; the join is its first statement, and the kernel may
      // hold that a while on a busy machine.)
      const inCallCgroup = () => /^0::.*\/call-[^/\n]+$/m.test(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))
      await until(inCallCgroup, 10_000, 'the standby in its call cgroup')
      const dir = tempDir()
      const result = await shell.run({ command: `${escapees(dir, true)}; sleep 0.2; echo "$$"` })
      expect(result.stdout.text).toBe(`${pid}\n`)
      await expectAllGone(pidsIn(dir, ['setsid', 'nohup', 'double', 'envi']))
    },
  )

  /**
   * A separate dsh (Node) process with a waiting standby, its temp folder `tmp`; answers it
   * and the standby's pid. Ended by a line on its stdin: `exit` (process.exit) or nothing.
   */
  async function dshWithStandby(tmp: string) {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { Context } from 'cordis'
         import { LocalShellExecutor } from '${pathToFileURL(resolve('dist/src/shell/index.js')).href}'
         const root = new Context()
         await root.plugin(LocalShellExecutor, { containment: 'cgroup', standbyAfterMs: 0 }).await()
         const shell = root.get('shell')
         await shell.run({ command: 'true' })
         while (shell.standby.waitingPid === undefined) await new Promise((r) => setTimeout(r, 20))
         console.log(shell.standby.waitingPid)
         process.stdin.on('data', () => process.exit(0))`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: tmp } },
    )
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    await until(() => out.includes('\n'), 30_000, 'the child dsh to report its standby')
    const standby = Number(out.trim())
    expect(isLive(standby)).toBe(true)
    expect(readdirSync(tmp).filter((name) => name.startsWith('dsh-standby-'))).toHaveLength(1)
    return { child, standby }
  }

  withCgroup('a waiting standby ends with the executor, and with dsh', async () => {
    const { shell, fiber, waiting } = await withStandby()
    await shell.run({ command: 'true' })
    const pid = await waiting()
    await fiber.dispose()
    await expectAllGone([pid])
    // dsh exits without unloading: the exit handler kills it and removes its folder.
    const exitTmp = tempDir()
    const exiting = await dshWithStandby(exitTmp)
    const exited = new Promise((done) => exiting.child.on('close', done))
    exiting.child.stdin.write('exit\n')
    await exited
    await expectAllGone([exiting.standby])
    expect(readdirSync(exitTmp).filter((name) => name.startsWith('dsh-standby-'))).toEqual([])
    // Killed without a word (dsh's SIGKILL): its end of the control pipe closes and it exits.
    const killed = await dshWithStandby(tempDir())
    killed.child.kill('SIGKILL')
    await expectAllGone([killed.standby])
  })

  withCgroup("a killed dsh's folders go when the next executor decides on its cgroup", async () => {
    const own = ownCgroupFolder()!
    const killed = await dshWithStandby(tempDir())
    const folders = readdirSync(own).filter((name) => name.startsWith(`dsh-${killed.child.pid}-`))
    expect(folders).toHaveLength(1)
    const folder = join(own, folders[0]!)
    const exited = new Promise((done) => killed.child.on('close', done))
    killed.child.kill('SIGKILL')
    await exited
    await expectAllGone([killed.standby])
    await until(() => !cgroupPopulated(folder), 10_000, 'the standby to leave its cgroup')
    // A killed process removes nothing: its folder and its standby's call folder stay ...
    expect(readdirSync(folder).filter((name) => name.startsWith('call-'))).toHaveLength(1)
    // ... until the next executor here looks for stale ones.
    const { shell } = await startExecutor({ containment: 'cgroup', standbyAfterMs: false })
    await shell.run({ command: 'true' })
    expect(existsSync(folder)).toBe(false)
  })

  withCgroup('an executor whose folder was removed between calls makes it again', async () => {
    const { shell } = await startExecutor({ containment: 'cgroup', standbyAfterMs: false })
    const first = await shell.run({ command: 'cat /proc/self/cgroup' })
    const folder = /\/(dsh-\d+-\d+)\/call-/.exec(first.stdout.text)?.[1]
    expect(folder).toBeDefined()
    // As the stale-folder sweep of a dsh in another PID namespace (it cannot see this
    // process) removes it while it is empty.
    rmdirSync(join(ownCgroupFolder()!, folder!))
    const second = await shell.run({ command: 'cat /proc/self/cgroup' })
    expect(second.exitCode).toBe(0)
    expect(second.stdout.text).toContain(`/${folder}/call-`)
  })
})
