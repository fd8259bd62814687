// Who holds a session for writing: a process identity (pid + process start time +
// boot id + host) and a per-acquisition nonce, shared by the JSONL lock file and the
// SQLite writer lease. A holder is treated as gone only when that is provable.

import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

/** The owner recorded in a lock or lease. */
export interface WriterOwner {
  pid: number
  hostname: string
  /** Start time of the process (Linux: clock ticks since boot, from /proc/<pid>/stat), if known. */
  startTime?: string
  /** Linux boot id; a holder from an earlier boot is gone even if its pid is reused. */
  bootId?: string
  /** Epoch ms when the lock or lease was taken. */
  acquiredAt: number
  /** Distinguishes this acquisition from any other, by this process or another. */
  nonce: string
}

/** A fresh owner record for this process (a new nonce each call). */
export function newWriterOwner(): WriterOwner {
  const owner: WriterOwner = {
    pid: process.pid,
    hostname: hostname(),
    acquiredAt: Date.now(),
    nonce: randomUUID(),
  }
  const startTime = processStartTime(process.pid)
  if (startTime !== undefined) owner.startTime = startTime
  const bootId = currentBootId()
  if (bootId !== undefined) owner.bootId = bootId
  return owner
}

/**
 * True only when the holder provably no longer runs: same host and an earlier boot,
 * or same host and boot with its pid gone or now belonging to a process that started
 * at another time (a reused pid). Another host, or missing facts, count as alive.
 */
export function isOwnerGone(owner: WriterOwner): boolean {
  if (owner.hostname !== hostname()) return false // another host's processes cannot be seen
  const bootId = currentBootId()
  if (owner.bootId !== undefined && bootId !== undefined && owner.bootId !== bootId) return true
  if (owner.pid === process.pid) {
    // This process (another backend instance in it) unless the pid was reused by us.
    const own = processStartTime(process.pid)
    return owner.startTime !== undefined && own !== undefined && owner.startTime !== own
  }
  if (!pidExists(owner.pid)) return true
  if (owner.startTime === undefined) return false
  const now = processStartTime(owner.pid)
  return now !== undefined && now !== owner.startTime
}

/** "process 1234 on host (since 2026-12-02T17:00:00.000Z)", for error messages. */
export function describeOwner(owner: WriterOwner): string {
  const who =
    owner.pid === process.pid && owner.hostname === hostname() ? 'this process' : `process ${owner.pid}`
  return `${who} on ${owner.hostname} (since ${new Date(owner.acquiredAt).toISOString()})`
}

/** Parses an owner record written by `JSON.stringify(owner)`; undefined when malformed. */
export function parseWriterOwner(value: unknown): WriterOwner | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const record = value as Partial<WriterOwner>
  if (
    typeof record.pid !== 'number' ||
    !Number.isInteger(record.pid) ||
    typeof record.hostname !== 'string' ||
    typeof record.nonce !== 'string'
  ) {
    return undefined
  }
  const owner: WriterOwner = {
    pid: record.pid,
    hostname: record.hostname,
    nonce: record.nonce,
    acquiredAt: typeof record.acquiredAt === 'number' ? record.acquiredAt : 0,
  }
  if (typeof record.startTime === 'string') owner.startTime = record.startTime
  if (typeof record.bootId === 'string') owner.bootId = record.bootId
  return owner
}

function pidExists(pid: number): boolean {
  if (pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code !== 'ESRCH' // EPERM: it exists, owned by someone else
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined off Linux. */
export function processStartTime(pid: number): string | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined // no such process, or no /proc: the caller falls back to the pid check
  }
  // The command name (field 2) may hold spaces and parentheses: fields restart after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return fields[19] // field 22 overall: fields 3.. start at index 0
}

let bootIdCache: string | null | undefined
export function currentBootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null
    } catch {
      bootIdCache = null // not Linux: staleness falls back to the pid check
    }
  }
  return bootIdCache ?? undefined
}
