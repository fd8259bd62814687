// Finding live processes by command line, for leak checks (Linux /proc).

import { readdirSync, readFileSync } from 'node:fs'

/** Pids of live (not zombie) processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0]
      if (cmdline.includes(marker) && state !== 'Z') found.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return found
}

/** Pids of live (not zombie) processes in process group `pgid`. */
export function liveGroupMembers(pgid: number): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
      // After the command name: state, ppid, pgrp.
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) found.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return found
}
