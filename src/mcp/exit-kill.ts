// Stdio MCP servers must not outlive dsh. Closing a server ends its stdin and gives it two
// seconds before the SDK's SIGTERM; a dsh that exits first (a signal, an error) would leave
// one that ignores end-of-input running. On exit, every server still running is killed.

const running = new Set<{ pid: number }>()
let installed = false

function killAll(): void {
  for (const server of running) {
    try {
      process.kill(server.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}

/**
 * Tracks a started stdio server's pid until the returned `forget` runs (after it was closed
 * or exited); it is killed if dsh exits meanwhile.
 */
export function killOnExit(pid: number): () => void {
  const server = { pid }
  if (!installed) {
    installed = true
    process.on('exit', killAll)
  }
  running.add(server)
  return () => running.delete(server)
}
