// Stdio MCP servers must not outlive dsh. Closing a server ends its stdin and gives it two
// seconds before SIGTERM; a dsh that exits first (an error, an uncaught failure) would leave
// one that ignores end-of-input running. On exit, every server still tracked is killed with
// its process group (each server leads its own, stdio-transport.ts) — only the very group
// that was started: its leader's pid is checked against its start time, so a pid the system
// has since given to another process is never signalled. A leader already gone leaves its
// pid reserved while members of its group live, so the group is still signalled then.

import { readFileSync } from 'node:fs'

interface RunningServer {
  pid: number
  startTime: string
}

const running = new Set<RunningServer>()
let installed = false

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined when unreadable. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

function killAll(): void {
  for (const server of running) {
    const now = startTimeOf(server.pid)
    if (now !== undefined && now !== server.startTime) continue
    try {
      process.kill(-server.pid, 'SIGKILL')
    } catch {
      // The group is empty: nothing left to stop.
    }
  }
}

/**
 * Tracks a started stdio server (the leader of process group `pid`) until the returned
 * `forget` runs (once it was closed); its group is killed if dsh exits meanwhile. Without
 * /proc nothing is tracked.
 */
export function killOnExit(pid: number): () => void {
  const startTime = startTimeOf(pid)
  if (startTime === undefined) return () => {}
  if (!installed) {
    installed = true
    process.on('exit', killAll)
  }
  const server = { pid, startTime }
  running.add(server)
  return () => running.delete(server)
}
