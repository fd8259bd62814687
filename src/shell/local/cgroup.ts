// A cgroup v2 per command where the system allows it: a folder `dsh-<pid>-<n>` under dsh's
// own cgroup, one `call-<n>` below it per command. Nothing a command starts can leave it
// (setsid and double forks included), and `cgroup.kill` ends all of it at once.

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { shellQuote } from '../../core/shell-quote.js'
import { withoutPtyMasters } from '../pty-masters.js'
import { signalEach } from './process-scan.js'

const IGNORED = ['ignore', 'ignore', 'ignore'] as const

/** The cgroup v2 folder this process lives in, or undefined (no v2 hierarchy, no /proc). */
export function ownCgroupFolder(): string | undefined {
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('0::'))
    if (line === undefined) return undefined
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((entry) => entry.split(' '))
      .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2')?.[4]
    return mount === undefined ? undefined : join(mount, line.slice(3))
  } catch {
    // No /proc: not Linux.
    return undefined
  }
}

let nextGroup = 1

/** How long the probe's `sh` may take to join before the cgroup counts as unusable. */
const PROBE_TIMEOUT_MS = 5_000

/**
 * Creates this executor's cgroup and checks that a child can join one below it (one `sh`
 * run, waited for). Undefined when it cannot: no cgroup v2, not writable (a systemd session
 * scope not delegated to the user), or joining is refused.
 */
export function createExecutorCgroup(): string | undefined {
  const made = makeProbedFolder()
  if (made === undefined) return undefined
  let joined = false
  try {
    const [program, args] = joinProbeCommand(made.probe)
    joined =
      spawnSync(program, args, { stdio: withoutPtyMasters(IGNORED), timeout: PROBE_TIMEOUT_MS }).status === 0
  } catch {
    // Could not start it: not joined.
  }
  return settleProbe(made, joined)
}

/** A background createExecutorCgroup: its folder at once, and whether it is kept once settled. */
export interface CgroupProbe {
  /** The executor folder being probed (removed again when the probe fails). */
  readonly folder: string
  /** The folder when a child could join below it, else undefined (and the folder is gone). */
  readonly settled: Promise<string | undefined>
}

/**
 * createExecutorCgroup without blocking: the `sh` runs while dsh goes on. Its join can wait
 * for the kernel (the first move into a cgroup in a while waits for an RCU grace period,
 * 8–18 ms here), and a call's own join right after it does not. Undefined when no folder
 * can be made here.
 */
export function startCgroupProbe(): CgroupProbe | undefined {
  const made = makeProbedFolder()
  if (made === undefined) return undefined
  const [program, args] = joinProbeCommand(made.probe)
  const joined = new Promise<boolean>((resolve) => {
    try {
      const child = spawn(program, args, { stdio: withoutPtyMasters(IGNORED), timeout: PROBE_TIMEOUT_MS })
      child.on('error', () => resolve(false))
      child.on('exit', (code) => resolve(code === 0))
    } catch {
      // Could not start it: not joined.
      resolve(false)
    }
  })
  return { folder: made.folder, settled: joined.then((ok) => settleProbe(made, ok)) }
}

/** A new executor folder with an empty `probe` cgroup below it; undefined when none can be made. */
function makeProbedFolder(): { folder: string; probe: string } | undefined {
  const own = ownCgroupFolder()
  if (own === undefined) return undefined
  // What killed dsh processes left here goes first: they could not remove their own folders.
  removeStaleCgroups(own)
  const folder = join(own, `dsh-${process.pid}-${nextGroup++}`)
  try {
    mkdirSync(folder)
  } catch {
    // Not delegated to us (EACCES, EROFS) or no such hierarchy: track processes instead.
    return undefined
  }
  const probe = join(folder, 'probe')
  try {
    mkdirSync(probe)
  } catch {
    removeCgroup(folder)
    return undefined
  }
  return { folder, probe }
}

/** `sh`, which moves itself into `probe` and exits 0 only when that worked. */
function joinProbeCommand(probe: string): [string, string[]] {
  return ['/bin/sh', ['-c', 'echo $$ > "$1"', 'sh', join(probe, 'cgroup.procs')]]
}

/** The executor folder once the probe's `sh` has exited: kept when it joined, else removed. */
function settleProbe(made: { folder: string; probe: string }, joined: boolean): string | undefined {
  try {
    rmdirSync(made.probe)
    if (joined) return made.folder
  } catch {
    // Could not clean up the probe: fall through and give the folder back.
  }
  removeCgroup(made.folder)
  return undefined
}

/**
 * Makes a call's cgroup `folder` below its executor folder; when that executor folder is
 * gone (removed as stale by a dsh that cannot see this process), makes it again: it was
 * empty, or it could not have been removed. Throws when it cannot (the call must not start
 * uncontained).
 */
export function makeCallCgroup(folder: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      mkdirSync(folder)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw error
    }
    try {
      mkdirSync(dirname(folder))
    } catch (error) {
      // Made again meanwhile by this process's other call: fine. Anything else: the call fails.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}

/** The pids in `folder` and the cgroups below it. */
export function cgroupProcesses(folder: string): number[] {
  const pids: number[] = []
  const visit = (dir: string) => {
    try {
      for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
        if (line !== '') pids.push(Number(line))
      for (const entry of readdirSync(dir, { withFileTypes: true }))
        if (entry.isDirectory()) visit(join(dir, entry.name))
    } catch {
      // Removed meanwhile: nothing left there.
    }
  }
  visit(folder)
  return pids
}

/** True while any process (a zombie included) is in `folder` or below it. */
export function cgroupPopulated(folder: string): boolean {
  try {
    return /^populated 1$/m.test(readFileSync(join(folder, 'cgroup.events'), 'utf8'))
  } catch {
    // Gone: empty.
    return false
  }
}

/** Sends `signal` to everything in `folder`; SIGKILL through `cgroup.kill` (Linux 5.14+) when there. Answers whether anything was there. */
export function signalCgroup(folder: string, signal: NodeJS.Signals): boolean {
  if (!cgroupPopulated(folder)) return false
  if (signal === 'SIGKILL' && existsSync(join(folder, 'cgroup.kill'))) {
    try {
      writeFileSync(join(folder, 'cgroup.kill'), '1')
      return true
    } catch {
      // Fall back to signalling each process below.
    }
  }
  signalEach(cgroupProcesses(folder), signal)
  return true
}

/** Removes `folder` and the cgroups below it once empty; false when something still runs there. */
export function removeCgroup(folder: string): boolean {
  // The usual call cgroup has nothing below it: one rmdir, no listing of its ~40 files.
  const first = rmdirCgroup(folder)
  if (first !== 'busy') return first === 'gone'
  // EBUSY: a process is in it, or a cgroup was made below it (removed first, if empty).
  try {
    let below = false
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      if (!removeCgroup(join(folder, entry.name))) return false
      below = true
    }
    return below && rmdirCgroup(folder) === 'gone'
  } catch (error) {
    // ENOENT: gone meanwhile.
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}

/** rmdir of a cgroup: `gone` (ENOENT too), `busy` (a process or a cgroup is in it), or `failed`. */
function rmdirCgroup(folder: string): 'gone' | 'busy' | 'failed' {
  try {
    rmdirSync(folder)
    return 'gone'
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? 'gone' : code === 'EBUSY' ? 'busy' : 'failed'
  }
}

/**
 * Removes the empty executor folders (`dsh-<pid>-<n>`) of dsh processes that are gone,
 * under `own`, this process's own cgroup. A folder with processes stays (its calls are
 * recorded, and reported by the orphan sweep). A dsh in another PID namespace looks gone
 * from here; its folder, empty between calls, may go too, and it makes it again
 * (makeCallCgroup).
 */
export function removeStaleCgroups(own = ownCgroupFolder()): void {
  if (own === undefined) return
  let names: string[]
  try {
    names = readdirSync(own)
  } catch {
    // Unreadable: nothing of ours to tidy.
    return
  }
  for (const name of names) {
    const pid = /^dsh-(\d+)-\d+$/.exec(name)?.[1]
    if (pid !== undefined && !processExists(Number(pid))) removeCgroup(join(own, name))
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but is not ours.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes `folder` (blocking, at most `timeoutMs`; for process exit) while a process may still
 * be joining it: a join the kernel holds (waitEmptySync sees nothing yet) lands while the
 * removal waits for the cgroup lock, and the removal then fails. So it waits for that process
 * to leave and tries again. `prepare` runs before each try (releasing what is below); a
 * false answer skips that try. False when the folder is still there at the end.
 */
export function removeCgroupSync(folder: string, timeoutMs: number, prepare = () => true): boolean {
  const until = Date.now() + timeoutMs
  for (;;) {
    const empty = waitEmptySync(folder, until - Date.now())
    // Still tried when time ran out: `prepare` releases whatever has gone.
    if (prepare() && removeCgroup(folder)) return true
    if (!empty || Date.now() >= until) return false
    sleepSync(1)
  }
}

/** Waits (blocking, at most `timeoutMs`) until `folder` has no process; for process exit. */
export function waitEmptySync(folder: string, timeoutMs: number): boolean {
  const until = Date.now() + timeoutMs
  while (cgroupPopulated(folder)) {
    if (Date.now() >= until) return false
    sleepSync(5)
  }
  return true
}

/** Blocks this thread for `ms` (only where nothing can wait asynchronously: process exit). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * The start of a bash script that moves that bash into the cgroup `folder` before anything
 * else of the script runs: what joinCgroupCommand's `sh` does, one exec fewer per command.
 * It shares the script's first line, so the command's own line numbers stay as they were;
 * a bash that cannot join exits 126 without running the rest. Only for a bash whose
 * environment cannot run code before the script (bashJoinsItself in launch.ts).
 */
export function joinCgroupLine(folder: string): string {
  return `echo "$$" > ${shellQuote(join(folder, 'cgroup.procs'))} || exit 126; `
}

/** The program and arguments that run `program args` inside the cgroup `folder` from its first instruction. */
export function joinCgroupCommand(
  folder: string,
  program: string,
  args: readonly string[],
): [string, string[]] {
  // `sh` moves itself in, then becomes the command: nothing runs outside the cgroup.
  return [
    '/bin/sh',
    [
      '-c',
      'echo $$ > "$1" && shift && exec "$@"',
      'dsh-cgroup',
      join(folder, 'cgroup.procs'),
      program,
      ...args,
    ],
  ]
}
