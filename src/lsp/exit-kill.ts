// Language servers must not outlive dsh: a dsh that exits without stopping them (a signal,
// an error) kills every server process group it still owns, synchronously, on `exit`.

import { signalOwnGroup } from '../shell/index.js'

interface OwnedGroup {
  readonly pgid: number
  readonly leaderTicks: number | null
}

const owned = new Set<OwnedGroup>()
let installed = false

/** Kills the group `pgid` if dsh exits before the returned `forget` runs. */
export function killGroupOnExit(pgid: number, leaderTicks: number | null): () => void {
  if (!installed) {
    installed = true
    process.on('exit', () => {
      for (const group of owned) signalOwnGroup(group.pgid, group.leaderTicks, 'SIGKILL')
    })
  }
  const group = { pgid, leaderTicks }
  owned.add(group)
  return () => owned.delete(group)
}
