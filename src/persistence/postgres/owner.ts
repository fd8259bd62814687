// Who holds a writer lease: host, pid, and the process start time (boot id plus the
// kernel's start tick), so a reused pid on the same host is never mistaken for the owner.

import { readFileSync } from 'node:fs'

/** `<boot id>:<start tick>` of a process on this host, or undefined when /proc cannot tell. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Field 2 (comm) may hold spaces and parentheses: count fields after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const startTick = fields[19] // field 22 of the whole line
    return startTick === undefined ? undefined : `${bootId()}:${startTick}`
  } catch {
    return undefined // no such process, or no /proc
  }
}

let cachedBootId: string | undefined
function bootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    } catch {
      cachedBootId = 'unknown-boot'
    }
  }
  return cachedBootId
}

/**
 * Whether the process a lease names is certainly gone. Only answerable on its own host:
 * for another host the answer is always false (only the lease's expiry can tell).
 */
export function ownerIsGone(
  owner: { host: string; pid: number; processStart: string | null },
  here: string,
): boolean {
  if (owner.host !== here) return false
  if (owner.pid === process.pid) return owner.processStart !== processStart(process.pid)
  const start = processStart(owner.pid)
  if (start !== undefined) return owner.processStart !== null && start !== owner.processStart
  try {
    process.kill(owner.pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}
