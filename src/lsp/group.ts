// Which processes of a server's group are still running (Linux /proc; zombies excluded:
// helpers the server left are reparented, and whoever reaps them does so in its own time).

import { readdirSync, readFileSync } from 'node:fs'

export function liveGroupMembers(pgid: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return [] // No /proc: nothing to wait for.
  }
  const found: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1')
      // After the command name: state, ppid, pgrp.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] !== 'Z' && fields[0] !== 'X' && Number(fields[2]) === pgid) found.push(Number(entry))
    } catch {
      // Ended while we looked.
    }
  }
  return found
}
