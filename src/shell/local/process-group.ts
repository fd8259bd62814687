// Signals to a whole process group: the shell is spawned detached, so its pid is the
// group id and `kill(-pid)` reaches every descendant that stayed in the group.

import { processStartTicks } from './running-calls.js'

/** Sends `signal` to the group; false when no process is left in it. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    // ESRCH: the group is empty. EPERM cannot happen for our own children.
    return false
  }
}

/** True while any process (a zombie included) is left in the group. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0)
}

/**
 * Signals the group `pgid` only while that pid still names the leader started at
 * `leaderTicks`, or no process at all (a pid in use as a group id is never given out again,
 * so members left without their leader are still ours). Once a group has emptied, the
 * system may give its id to an unrelated process group — a browser, another program's
 * shell — and a late signal (a kill timer, an exit-time sweep) must not reach it.
 */
export function signalOwnGroup(pgid: number, leaderTicks: number | null, signal: NodeJS.Signals): boolean {
  const now = processStartTicks(pgid)
  if (now !== null && leaderTicks !== null && now !== leaderTicks) return false
  return signalGroup(pgid, signal)
}
