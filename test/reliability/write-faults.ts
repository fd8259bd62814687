// Shared pieces of the write-failure trials (a file-size limit in disk-full.test.ts, a
// full file system in no-space.test.ts): the turn they run, the resumed `dsh run` under a
// shell prefix, the checks every failure must pass, and the trial loop both run.

import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { expect } from 'vitest'
import { DEFAULT_PRICE_TABLE, type UsageTotals } from '../../src/usage/index.js'
import { CLI, type CliResult, type CliWorld, hasStack, runCli } from '../apps/cli/cli.js'
import { type ScriptStep, startLoopbackModel } from '../support/loopback-model.js'
import { pricedStepByStep } from '../support/priced-step-by-step.js'
import { completedTurns, type DiskBackend, loadStored, makeBackendWorld, seqsContiguous } from './world.js'

export const SESSION_ID = 'full-disk'

/** A bash call with some output, then an answer: a few KiB of JSONL, tens of KiB of WAL. */
export const writeStep: ScriptStep = (request) =>
  request.messages.at(-1)?.role === 'tool'
    ? { text: 'answer '.repeat(60) }
    : { toolCalls: [{ name: 'bash', arguments: { command: 'seq 1 300' } }] }

/** `dsh run --session-id` of one turn, started by `bash -c "<prefix>; exec dsh …"` (e.g. `ulimit -f 40`). */
export function runPrefixed(world: CliWorld, prefix: string, text: string): Promise<CliResult> {
  const child = spawn(
    'bash',
    ['-c', `${prefix}; exec "$0" "$@"`, process.execPath, CLI, 'run', '--session-id', SESSION_ID, text],
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

/** The session's JSONL file (`dsh sessions path`), or '' on SQLite. */
export async function jsonlPathOf(world: CliWorld, backend: DiskBackend): Promise<string> {
  if (backend !== 'jsonl') return ''
  const path = await runCli(['sessions', 'path', SESSION_ID], { env: world.env, cwd: world.project })
  expect(path.code, path.stderr).toBe(0)
  return path.stdout.trim()
}

/** Two completed turns to start from. */
export async function seedSession(world: CliWorld): Promise<void> {
  for (const text of ['seed 1', 'seed 2']) {
    const seeded = await runCli(['run', '--session-id', SESSION_ID, text], {
      env: world.env,
      cwd: world.project,
    })
    expect(seeded.code, seeded.stderr).toBe(0)
  }
}

/** No file of the store is corrupt: JSONL is whole JSON lines; SQLite passes its integrity check. */
export function assertIntact(world: CliWorld, backend: DiskBackend, jsonlPath: string): void {
  if (backend === 'jsonl') {
    const text = readFileSync(jsonlPath, 'utf8')
    expect(text.endsWith('\n'), 'a torn last line').toBe(true)
    for (const line of text.slice(0, -1).split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    return
  }
  // Opening recovers what the WAL holds (as dsh's next open would), then checks every page.
  const db = new Database(join(world.home, 'sessions.db'))
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  } finally {
    db.close()
  }
}

/** The failure exits 1 with one line (besides progress lines) naming the file, with no stack, not "unexpected". */
export function assertOneLineError(result: CliResult): string {
  expect(result.code, result.stderr).toBe(1)
  expect(hasStack(result.stderr), result.stderr).toBe(false)
  expect(result.stderr, result.stderr).not.toContain('unexpected error')
  const errors = result.stderr.split('\n').filter((line) => /^(dsh:|turn ended:)/.test(line))
  expect(errors, result.stderr).toHaveLength(1)
  // It names the store's file, so the user knows which disk filled up.
  expect(errors[0], result.stderr).toMatch(/\/(sessions\.db|[^/]+\.jsonl)\b/)
  return errors[0]!
}

/** Where a failure line says the write failed: opening the store (lock, WAL index, folder) or an append. */
export function failureKind(line: string): 'open' | 'append' {
  return /cannot append/.test(line) ? 'append' : 'open'
}

/**
 * After a trial: the store is intact, no committed turn is lost, and a run without the
 * fault resumes and completes. Returns the turns committed now.
 */
export async function assertRecovers(
  world: CliWorld,
  backend: DiskBackend,
  jsonlPath: string,
  committed: string[],
  label: string,
): Promise<string[]> {
  assertIntact(world, backend, jsonlPath)
  const stored = await loadStored(world, backend, SESSION_ID)
  expect(seqsContiguous(stored)).toBe(true)
  const now = completedTurns(stored)
  expect(now.slice(0, committed.length), `${label}: a committed turn was lost`).toEqual(committed)
  const resumed = await runCli(['run', '--session-id', SESSION_ID, `free ${label}`], {
    env: world.env,
    cwd: world.project,
  })
  expect(resumed.code, `${label}: resume after the failure: ${resumed.stderr}`).toBe(0)
  assertIntact(world, backend, jsonlPath)
  const loaded = await loadStored(world, backend, SESSION_ID)
  const after = completedTurns(loaded)
  expect(after.at(-1)).toBe(`free ${label}`)
  // The listed usage (the backend's ledger) counts every stored step once, the failed run's too.
  const listed = await runCli(['sessions', 'list', '--json'], { env: world.env, cwd: world.project })
  const row = (JSON.parse(listed.stdout) as { id: string; usage: UsageTotals }[]).find(
    (candidate) => candidate.id === SESSION_ID,
  )
  const { cost: _cost, ...tokens } = pricedStepByStep(loaded.events, DEFAULT_PRICE_TABLE)
  expect(row?.usage, `${label}: listed usage`).toMatchObject(tokens)
  return after
}

/** One trial's fault: the shell prefix of the resumed run, its label, and what undoes it. */
export interface WriteFault {
  prefix: string
  label: string
  /** Runs after the faulted run, before the recovery checks (e.g. frees the disk again). */
  undo?: () => void
}

export interface WriteFaultTally {
  failedOpens: number
  failedAppends: number
  /** Runs the fault did not stop. */
  fitted: number
  ms: number
}

/**
 * Seeds a session under `dir` (a home against the loopback model), then runs `trials`
 * resumed `dsh run`s, each under `faultFor(k, jsonlPath)`: every failure must be one line,
 * and after each the store must recover (assertRecovers). Answers the tally.
 */
export async function runWriteFaultTrials(
  dir: string,
  backend: DiskBackend,
  trials: number,
  faultFor: (k: number, jsonlPath: string) => WriteFault,
): Promise<WriteFaultTally> {
  const model = await startLoopbackModel(Array.from({ length: 4 * (trials + 2) + 4 }, () => writeStep))
  const world = makeBackendWorld(dir, model.baseUrl, backend)
  const started = Date.now()
  const tally = { failedOpens: 0, failedAppends: 0, fitted: 0, ms: 0 }
  try {
    await seedSession(world)
    const jsonlPath = await jsonlPathOf(world, backend)
    let committed = completedTurns(await loadStored(world, backend, SESSION_ID))
    for (let k = 0; k < trials; k++) {
      const fault = faultFor(k, jsonlPath)
      const result = await runPrefixed(world, fault.prefix, fault.label)
      if (result.code === 0) tally.fitted++
      else if (failureKind(assertOneLineError(result)) === 'open') tally.failedOpens++
      else tally.failedAppends++
      fault.undo?.()
      committed = await assertRecovers(world, backend, jsonlPath, committed, `trial ${k}`)
    }
  } finally {
    await model.close()
  }
  tally.ms = Date.now() - started
  return tally
}
