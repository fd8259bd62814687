// Stdio MCP servers must not outlive dsh. Closing a server ends its stdin and gives it two
// seconds before SIGTERM; a dsh that exits first (an error, an uncaught failure) would leave
// one that ignores end-of-input running. On exit, every server still tracked is killed with
// its process group (each server leads its own, stdio-transport.ts) — only the very group
// that was started: its leader's pid is checked against its start time, so a pid the system
// has since given to another process is never signalled. A leader already gone leaves its
// pid reserved while members of its group live, so the group is still signalled then.

import { processStartTicks } from '../shell/index.js'

interface RunningServer {
  pid: number
  /** Field 22 of /proc/<pid>/stat when the server was tracked. */
  startTicks: number
}

const running = new Set<RunningServer>()
let installed = false

function killAll(): void {
  for (const server of running) {
    const now = processStartTicks(server.pid)
    if (now !== null && now !== server.startTicks) continue
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
  const startTicks = processStartTicks(pid)
  if (startTicks === null) return () => {}
  if (!installed) {
    installed = true
    process.on('exit', killAll)
  }
  const server = { pid, startTicks }
  running.add(server)
  return () => running.delete(server)
}
