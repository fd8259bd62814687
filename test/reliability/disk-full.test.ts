// Write failures on each disk backend: `dsh run` resumes under a file-size limit
// (`ulimit -f`, what a full disk does to an append: EFBIG/ENOSPC part-way through a write)
// set near the current size of the store. Every failure is one line naming the file, no
// file is left corrupt, every committed turn survives, and a run without the limit resumes.

import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, CLI, type CliResult, type CliWorld, hasStack, runCli } from '../apps/cli/cli.js'
import type { ScriptStep } from '../support/loopback-model.js'
import { startLoopbackModel } from '../support/loopback-model.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { createRandom, reportFigure, SEED, sized } from './size.js'
import {
  completedTurns,
  DISK_BACKENDS,
  type DiskBackend,
  loadStored,
  makeBackendWorld,
  seqsContiguous,
} from './world.js'

const TRIALS = sized({ ci: 5, full: 60 })
const ID = 'full-disk'

const dirs: string[] = []
beforeAll(assertBuilt)
afterAll(() => {
  for (const dir of dirs) removeTempDir(dir)
})

/** A bash call with some output, then an answer. */
const step: ScriptStep = (request) =>
  request.messages.at(-1)?.role === 'tool'
    ? { text: 'answer '.repeat(60) }
    : { toolCalls: [{ name: 'bash', arguments: { command: 'seq 1 300' } }] }

/** `dsh run` with every file it writes limited to `blocks` KiB (bash's `ulimit -f` unit). */
function runLimited(world: CliWorld, blocks: number, text: string): Promise<CliResult> {
  const child = spawn(
    'bash',
    ['-c', `ulimit -f ${blocks}; exec "$0" "$@"`, process.execPath, CLI, 'run', '--session-id', ID, text],
    { env: world.env, cwd: world.project, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** The store's files and the largest size among them (the limit applies per file). */
function storeFiles(world: CliWorld, backend: DiskBackend, jsonlPath: string): string[] {
  if (backend === 'jsonl') return [jsonlPath]
  const db = join(world.home, 'sessions.db')
  return [db, `${db}-wal`]
}

function largest(files: string[]): number {
  let max = 0
  for (const file of files) {
    try {
      max = Math.max(max, statSync(file).size)
    } catch {
      // The WAL file exists only while a connection is open or after a crash.
    }
  }
  return max
}

/** No file of the store is corrupt: JSONL is whole JSON lines; SQLite passes its integrity check. */
function assertIntact(world: CliWorld, backend: DiskBackend, jsonlPath: string): void {
  if (backend === 'jsonl') {
    const text = readFileSync(jsonlPath, 'utf8')
    expect(text.endsWith('\n'), 'a torn last line').toBe(true)
    for (const line of text.slice(0, -1).split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    return
  }
  const db = new Database(join(world.home, 'sessions.db'))
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  } finally {
    db.close()
  }
}

/** The failure is one line (besides progress lines) naming the file, with no stack, not "unexpected". */
function assertOneLineError(result: CliResult): void {
  expect(hasStack(result.stderr), result.stderr).toBe(false)
  expect(result.stderr, result.stderr).not.toContain('unexpected error')
  const errors = result.stderr.split('\n').filter((line) => /^(dsh:|turn ended:)/.test(line))
  expect(errors, result.stderr).toHaveLength(1)
  // It names the store's file, so the user knows which disk filled up.
  expect(errors[0], result.stderr).toMatch(/\/(sessions\.db|[^/]+\.jsonl)\b/)
}

describe.each(DISK_BACKENDS)('write failures (%s)', (backend) => {
  it(`${TRIALS} runs under a file-size limit: one-line errors, no corrupt file, no lost turn`, async () => {
    const random = createRandom(SEED + 7)
    const dir = createTempDir('dsh-rel-full-')
    dirs.push(dir)
    const model = await startLoopbackModel(Array.from({ length: 4 * (TRIALS + 2) + 4 }, () => step))
    const world = makeBackendWorld(dir, model.baseUrl, backend)
    const started = Date.now()
    let failed = 0
    let fitted = 0
    try {
      for (const text of ['seed 1', 'seed 2']) {
        const seeded = await runCli(['run', '--session-id', ID, text], { env: world.env, cwd: world.project })
        expect(seeded.code, seeded.stderr).toBe(0)
      }
      const jsonlPath =
        backend === 'jsonl'
          ? (await runCli(['sessions', 'path', ID], { env: world.env, cwd: world.project })).stdout.trim()
          : ''
      let committed = completedTurns(await loadStored(world, backend, ID))
      for (let k = 0; k < TRIALS; k++) {
        const size = largest(storeFiles(world, backend, jsonlPath))
        // Trial 0: 1 KiB, below every file (even opening the database fails). Then from just under the current size (the first write fails) to a few KiB over (a later one does).
        const blocks = k === 0 ? 1 : Math.max(1, Math.ceil(size / 1024) + Math.floor(random() * 8) - 1)
        const result = await runLimited(world, blocks, `limited ${k}`)
        if (result.code === 0) fitted++
        else {
          failed++
          expect(result.code, result.stderr).toBe(1)
          assertOneLineError(result)
        }
        assertIntact(world, backend, jsonlPath)
        const stored = await loadStored(world, backend, ID)
        expect(seqsContiguous(stored)).toBe(true)
        const now = completedTurns(stored)
        expect(now.slice(0, committed.length), `trial ${k}: a committed turn was lost`).toEqual(committed)
        const resumed = await runCli(['run', '--session-id', ID, `free ${k}`], {
          env: world.env,
          cwd: world.project,
        })
        expect(resumed.code, `trial ${k}: resume after the failure: ${resumed.stderr}`).toBe(0)
        assertIntact(world, backend, jsonlPath)
        committed = completedTurns(await loadStored(world, backend, ID))
        expect(committed.at(-1)).toBe(`free ${k}`)
      }
    } finally {
      await model.close()
    }
    expect(failed, 'no trial hit the limit').toBeGreaterThan(0)
    reportFigure(`disk-full ${backend}`, {
      trials: TRIALS,
      failedWrites: failed,
      fitted,
      corruptFiles: 0,
      lostTurns: 0,
      ms: Date.now() - started,
    })
  })
})
