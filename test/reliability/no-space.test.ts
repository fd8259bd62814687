// A full file system on each disk backend: the home lives on a small tmpfs this file
// mounts (as root, or through `sudo -n`), filled before each trial to leave a few pages
// free, so a write fails with ENOSPC wherever the turn runs out: a JSONL append or lock,
// SQLite's WAL index or WAL. Every failure is one line naming the file, no file is left
// corrupt, every committed turn survives, and once space is freed the session resumes.

import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { assertBuilt } from '../apps/cli/cli.js'
import { describeRequires } from '../support/requires.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { createRandom, reportFigure, SEED, sized } from './size.js'
import { DISK_BACKENDS, type DiskBackend } from './world.js'
import { runWriteFaultTrials } from './write-faults.js'

const TRIALS = sized({ ci: 5, full: 60 })
const TMPFS_SIZE = '8m'
const PAGE = 4096
/**
 * Free pages left per trial, at most: on JSONL the lock file takes one and a turn's
 * appends (about 3 KiB) one more; SQLite needs 8 for its WAL index and 15–20 for the WAL.
 */
const MAX_FREE_PAGES: Record<DiskBackend, number> = { jsonl: 2, sqlite: 32 }
/** Trial 1's free pages: the store opens (lock file; WAL index) but the first write needs more. */
const OPEN_ONLY_PAGES: Record<DiskBackend, number> = { jsonl: 1, sqlite: 8 }

const isRoot = process.getuid?.() === 0

/** Runs a mount command as root (directly, or through `sudo -n`); throws with its output. */
function asRoot(args: string[]): void {
  const [command, ...rest] = isRoot ? args : ['sudo', '-n', ...args]
  const result = spawnSync(command!, rest, { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.error}`)
}

/** Whether this machine lets the test mount a tmpfs (root or `sudo -n`, and the right to mount). */
function mountPermitted(): boolean {
  const probe = createTempDir('dsh-rel-mount-probe-')
  try {
    asRoot(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe])
    asRoot(['umount', probe])
    return true
  } catch {
    return false // not root, no passwordless sudo, or no right to mount (an unprivileged container)
  } finally {
    removeTempDir(probe)
  }
}

const canMount = mountPermitted()
const why = canMount ? '' : ' (skipped: mounting a tmpfs needs root or sudo -n, and the right to mount)'

const mounts: string[] = []
const dirs: string[] = []
beforeAll(assertBuilt)
afterAll(() => {
  for (const mount of mounts) asRoot(['umount', mount])
  for (const dir of dirs) removeTempDir(dir)
})

/** Fills the file system with `filler` until exactly `pages` pages are free. */
function leaveFree(mount: string, filler: string, pages: number): void {
  rmSync(filler, { force: true })
  const stats = statfsSync(mount)
  const free = stats.bavail * stats.bsize
  writeFileSync(filler, Buffer.alloc(Math.max(0, free - pages * PAGE)))
  const left = statfsSync(mount)
  expect(left.bavail * left.bsize, 'the filler left the wanted space').toBe(pages * PAGE)
}

async function noSpaceTrials(backend: DiskBackend): Promise<void> {
  const random = createRandom(SEED + 11)
  const dir = createTempDir('dsh-rel-enospc-')
  dirs.push(dir)
  const mount = join(dir, 'fs')
  mkdirSync(mount)
  asRoot(['mount', '-t', 'tmpfs', '-o', `size=${TMPFS_SIZE},mode=0700`, 'tmpfs', mount])
  mounts.push(mount)
  const filler = join(mount, 'filler')
  const tally = await runWriteFaultTrials(mount, backend, TRIALS, (k) => {
    // Trial 0: no page free at all; trial 1: room to open the store only; then at random.
    const pages =
      k === 0 ? 0 : k === 1 ? OPEN_ONLY_PAGES[backend] : Math.floor(random() * (MAX_FREE_PAGES[backend] + 1))
    leaveFree(mount, filler, pages)
    return { prefix: 'true', label: `no space ${k}`, undo: () => rmSync(filler) }
  })
  expect(tally.failedOpens + tally.failedAppends, 'no trial ran out of space').toBeGreaterThan(0)
  reportFigure(`no-space ${backend}`, {
    trials: TRIALS,
    failedOpens: tally.failedOpens,
    failedAppends: tally.failedAppends,
    fitted: tally.fitted,
    corruptFiles: 0,
    lostTurns: 0,
    ms: tally.ms,
  })
}

// Outside CI a machine without root or sudo skips this file with the reason in its name; under CI it fails (requires.ts).
describeRequires(canMount, 'the right to mount a small tmpfs (root or sudo -n)').each(DISK_BACKENDS)(
  `a full file system (%s)${why}`,
  (backend) => {
    it(`${TRIALS} runs with a few pages free: one-line errors, no corrupt file, no lost turn`, () =>
      noSpaceTrials(backend))
  },
)
