// Stdio MCP servers must not outlive dsh. Closing a server ends its stdin and gives it two
// seconds before the SDK's SIGTERM; a dsh that exits first (a signal, an error) would leave
// one that ignores end-of-input running. On exit, every server still running is killed —
// only the very process that was started: a pid is checked against its start time, so a
// pid the system has since given to another process is never signalled.

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
    if (startTimeOf(server.pid) !== server.startTime) continue
    try {
      process.kill(server.pid, 'SIGKILL')
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Tracks a started stdio server until the returned `forget` runs (once it was closed or
 * exited); it is killed if dsh exits meanwhile. Without /proc nothing is tracked.
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
