// Finding live processes by command line, for leak checks (Linux /proc).

import { readdirSync, readFileSync } from 'node:fs'
import { until } from './until.js'

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

/**
 * Whether `pid` is a live process. A zombie is not: a killed process whose parent has not yet
 * reaped it still answers `kill(pid, 0)`, and on a busy machine the reaping can lag.
 */
export function isLive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
    return state !== undefined && state !== 'Z'
  } catch {
    return false
  }
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

/**
 * Waits until no live process is left in group `pgid`. A group that was signalled dies only
 * as each member is scheduled, which on a busy machine can come after the call that sent the
 * signal returned; a group that was never signalled stays, and the wait fails after 10 s.
 */
export async function groupGone(pgid: number): Promise<void> {
  await until(() => liveGroupMembers(pgid).length === 0, 10_000, `process group ${pgid} to be gone`)
}
