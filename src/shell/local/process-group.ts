// Signals to a whole process group: the shell is spawned detached, so its pid is the
// group id and `kill(-pid)` reaches every descendant that stayed in the group.

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
