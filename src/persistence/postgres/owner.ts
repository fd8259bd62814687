// Who holds a PostgreSQL writer lease, on top of the shared process identity
// (../owner.ts): host as configured (persistence.hostName), pid, and the process
// start as `<boot id>:<start tick>`, so a reused pid is never mistaken for the owner.

import { currentBootId, processStartTime } from '../owner.js'

/** `<boot id>:<start tick>` of a process on this host, or undefined when /proc cannot tell. */
export function processStart(pid: number): string | undefined {
  const tick = processStartTime(pid)
  return tick === undefined ? undefined : `${currentBootId() ?? 'unknown-boot'}:${tick}`
}

/**
 * Whether the process a lease names is certainly gone. Only answerable on its own host
 * (`here`, the configured host name): for another host the answer is always false, and
 * only the lease's expiry can tell.
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
