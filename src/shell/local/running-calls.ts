// The record of every running command under `$DSH_HOME/running/`, one small JSON file per
// call, removed when nothing of the call is left. After a SIGKILL of dsh the next start
// reads the records of dead dsh processes and finds (and optionally kills) what still runs;
// a record of processes left running stays, so a later start can still kill them.

import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { cgroupProcesses, removeCgroup, removeStaleCgroups, signalCgroup, waitEmptySync } from './cgroup.js'
import { callMarkerName, findCallProcesses, signalEach } from './process-scan.js'

export const RUNNING_FOLDER = 'running'
const COMMAND_CHARS = 200

/** What a record says about one call. */
export interface RunningCallRecord {
  version: 1
  /** The dsh process that ran it, and its start time (clock ticks since boot, /proc/<pid>/stat field 22). */
  dsh: { pid: number; startTicks: number | null }
  token: string
  sessionId?: string
  /** The command, cut to 200 characters. */
  command: string
  /** The call's cgroup folder, when it ran in one. */
  cgroup?: string
  /** When a start reported its processes left running (epoch ms): later reports leave it out. */
  reportedAt?: number
}

/** A start time that tells a reused pid from the process that wrote a record. */
export function processStartTicks(pid: number): number | null {
  let fd: number | undefined
  try {
    // One read into a small buffer: readFileSync sizes a /proc file (length 0) at 64 KB,
    // and this runs for every command. The line is a few hundred bytes (comm ≤ 64).
    fd = openSync(`/proc/${pid}/stat`, 'r')
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0)
    const stat = statBuffer.toString('latin1', 0, length)
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
  } catch {
    // Gone (or no /proc).
    return null
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

const statBuffer = Buffer.alloc(4096)

let ownStartTicks: number | null | undefined

/** Writes the record of a call about to start; answers its path. Throws when the folder cannot be written. */
export function writeRunningRecord(
  home: string,
  call: { token: string; sessionId?: string | undefined; command: string; cgroup?: string | undefined },
): string {
  const folder = join(home, RUNNING_FOLDER)
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  ownStartTicks ??= processStartTicks(process.pid)
  const record: RunningCallRecord = {
    version: 1,
    dsh: { pid: process.pid, startTicks: ownStartTicks },
    token: call.token,
    ...(call.sessionId !== undefined ? { sessionId: call.sessionId } : {}),
    command: call.command.slice(0, COMMAND_CHARS),
    ...(call.cgroup !== undefined ? { cgroup: call.cgroup } : {}),
  }
  const path = join(folder, `${call.token}.json`)
  writeFileSync(path, JSON.stringify(record), { mode: 0o600 })
  return path
}

/** One orphaned call found at start. */
export interface OrphanedCall {
  record: RunningCallRecord
  /** Its processes still running (before any kill). */
  pids: number[]
  killed: boolean
}

function readRecord(path: string): RunningCallRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as RunningCallRecord
    return record?.version === 1 && typeof record.token === 'string' && typeof record.dsh?.pid === 'number'
      ? record
      : undefined
  } catch {
    // Torn (dsh died while writing it) or unreadable: nothing to act on.
    return undefined
  }
}

/**
 * Finds the calls of dsh processes that are gone (killed without cleaning up) whose
 * processes still run, and kills them when `kill`. Without `kill`, a call is answered by
 * the first sweep that finds it and marked reported; its record stays while its processes
 * run (a later sweep with `kill` answers and ends them), later sweeps without `kill` leave
 * it out. Records with nothing left are removed; those of live dsh processes are left alone.
 */
export function sweepOrphanedCalls(home: string, options: { kill: boolean }): OrphanedCall[] {
  const folder = join(home, RUNNING_FOLDER)
  let names: string[]
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'))
  } catch {
    // No folder: nothing ever ran here, or nothing is left.
    return []
  }
  if (names.length > 0) removeStaleCgroups()
  const orphans: OrphanedCall[] = []
  for (const name of names) {
    const path = join(folder, name)
    const record = readRecord(path)
    if (
      record &&
      processStartTicks(record.dsh.pid) === record.dsh.startTicks &&
      record.dsh.startTicks !== null
    )
      continue // its dsh still runs and cleans up after itself
    if (record) {
      const pids = record.cgroup
        ? cgroupProcesses(record.cgroup)
        : findCallProcesses(callMarkerName(record.token))
      if (pids.length > 0 && !options.kill) {
        if (record.reportedAt === undefined) {
          orphans.push({ record, pids, killed: false })
          writeFileSync(path, JSON.stringify({ ...record, reportedAt: Date.now() }), { mode: 0o600 })
        }
        continue // kept: a later start with `orphanedCommands: kill` ends them
      }
      if (pids.length > 0) {
        if (record.cgroup) signalCgroup(record.cgroup, 'SIGKILL')
        else signalEach(pids, 'SIGKILL')
        orphans.push({ record, pids, killed: true })
      }
      if (record.cgroup) {
        // Killed processes take a moment to leave; then the empty folders go, the executor's too.
        waitEmptySync(record.cgroup, 1_000)
        if (removeCgroup(record.cgroup)) removeCgroup(dirname(record.cgroup))
      }
    }
    rmSync(path, { force: true })
  }
  return orphans
}
