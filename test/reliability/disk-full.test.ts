// Write failures on each disk backend: `dsh run` resumes under a file-size limit
// (`ulimit -f`: EFBIG part-way through a write, as a full disk fails an append). On JSONL
// the limit sits near the session file's size; on SQLite it sits inside the WAL, the file
// every commit appends to. Every failure is one line naming the file, no file is left
// corrupt, every committed turn survives, and a run without the limit resumes.

import { statSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt } from '../apps/cli/cli.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { createRandom, reportFigure, SEED, sized } from './size.js'
import { DISK_BACKENDS, type DiskBackend } from './world.js'
import { runWriteFaultTrials } from './write-faults.js'

const TRIALS = sized({ ci: 5, full: 60 })

/**
 * SQLite's WAL index (`sessions.db-shm`) is sized to 32 KiB by ftruncate at open, so a
 * lower limit fails every open. Above it, in WAL mode a commit writes only the WAL (the
 * database file is written by checkpoints, which run at close or past 1,000 pages), and a
 * resumed turn grows the WAL by 60–80 KiB: a limit of 33–72 KiB fails a WAL append.
 */
const SHM_KIB = 32
const WAL_SPREAD_KIB = 40

const dirs: string[] = []
beforeAll(assertBuilt)
afterAll(() => {
  for (const dir of dirs) removeTempDir(dir)
})

/** The limit for trial k, in KiB (bash's `ulimit -f` unit). */
function limitKib(backend: DiskBackend, k: number, random: () => number, jsonlPath: string): number {
  // Trial 0: 1 KiB, below every file (opening the store fails).
  if (k === 0) return 1
  if (backend === 'sqlite') return SHM_KIB + 1 + Math.floor(random() * WAL_SPREAD_KIB)
  // JSONL: from just under the file's size (the first append fails) to a few KiB over (a later one does).
  return Math.max(1, Math.ceil(statSync(jsonlPath).size / 1024) + Math.floor(random() * 8) - 1)
}

describe.each(DISK_BACKENDS)('write failures under a file-size limit (%s)', (backend) => {
  it(`${TRIALS} runs under a file-size limit: one-line errors, no corrupt file, no lost turn`, async () => {
    const random = createRandom(SEED + 7)
    const dir = createTempDir('dsh-rel-full-')
    dirs.push(dir)
    const tally = await runWriteFaultTrials(dir, backend, TRIALS, (k, jsonlPath) => ({
      prefix: `ulimit -f ${limitKib(backend, k, random, jsonlPath)}`,
      label: `limited ${k}`,
    }))
    // The limit must have failed an append, not only the open of trial 0.
    expect(tally.failedAppends, 'no trial failed an append').toBeGreaterThan(0)
    reportFigure(`disk-full ${backend}`, {
      trials: TRIALS,
      failedOpens: tally.failedOpens,
      failedAppends: tally.failedAppends,
      fitted: tally.fitted,
      corruptFiles: 0,
      lostTurns: 0,
      ms: tally.ms,
    })
  })
})
