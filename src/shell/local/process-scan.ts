// Finding a call's processes without a cgroup (Linux /proc): every command carries a marker
// variable in its environment, which survives setsid, nohup and double forks, and whatever
// has a marked or root process among its ancestors counts too (`env -i` children).

import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs'

/** The environment variable prefix that marks a call's processes: `__DSH_CALL_<token>=1`. */
export const CALL_MARKER_PREFIX = '__DSH_CALL_'

/** The marker variable of one call. */
export function callMarkerName(token: string): string {
  return `${CALL_MARKER_PREFIX}${token}`
}

interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
  /** Clock ticks since boot (field 22). */
  startTicks: number
  zombie: boolean
}

const statBuffer = Buffer.alloc(1024)

function readStat(pid: number): ProcEntry | undefined {
  let fd: number | undefined
  try {
    // One read into a reused buffer: this runs for every process on the machine.
    fd = openSync(`/proc/${pid}/stat`, 'r')
    const size = readSync(fd, statBuffer, 0, statBuffer.length, 0)
    const stat = statBuffer.toString('latin1', 0, size)
    // The command name (field 2) is in parentheses and may hold anything: parse after it.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {
      pid,
      ppid: Number(rest[1]),
      pgrp: Number(rest[2]),
      startTicks: Number(rest[19]),
      zombie: rest[0] === 'Z' || rest[0] === 'X',
    }
  } catch {
    // Gone since the listing, or not ours to read.
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function hasMarker(pid: number, marker: Buffer, afterNul: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`)
    return environ.subarray(0, marker.length).equals(marker) || environ.includes(afterNul)
  } catch {
    // Gone, or another user's process (EACCES): not one of ours.
    return false
  }
}

/**
 * The live (not zombie) processes of a call: those whose environment holds `markerName=`,
 * those in process group `group`, and every descendant of them. Never includes this
 * process. Only processes started at or after `sinceTicks` (the call's shell's start, in
 * clock ticks since boot) can be the call's: older ones are not read further. Empty where
 * there is no /proc.
 */
export function findCallProcesses(markerName: string, group?: number, sinceTicks = 0): number[] {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    // No /proc (not Linux): only the process group can be reached.
    return []
  }
  const marker = Buffer.from(`${markerName}=`)
  const afterNul = Buffer.from(`\0${markerName}=`)
  const entries: ProcEntry[] = []
  const found = new Set<number>()
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue
    const entry = readStat(pid)
    if (!entry || entry.startTicks < sinceTicks) continue
    entries.push(entry)
    if (!entry.zombie && (entry.pgrp === group || hasMarker(pid, marker, afterNul))) found.add(pid)
  }
  // Descendants by parent links, repeated until nothing new: a child listed before its parent.
  const children = new Map<number, ProcEntry[]>()
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry])
  const queue = [...found]
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (child.zombie || found.has(child.pid) || child.pid === process.pid) continue
      found.add(child.pid)
      queue.push(child.pid)
    }
  }
  return [...found]
}

/** Sends `signal` to each pid; answers how many were still there. */
export function signalEach(pids: readonly number[], signal: NodeJS.Signals): number {
  let reached = 0
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
      reached += 1
    } catch {
      // ESRCH: it ended meanwhile.
    }
  }
  return reached
}
