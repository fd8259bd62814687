// Random SIGKILL points across multi-turn `dsh run` / resume on each backend (JSONL,
// SQLite, and PostgreSQL on a cluster this file starts): after every kill each committed
// turn is still stored, the session loads (read-only) and the next run resumes it; a
// final run without a kill completes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, spawnCli } from '../apps/cli/cli.js'
import { type ScriptStep, startLoopbackModel } from '../support/loopback-model.js'
import { describePostgres, describeSkipReason, useCluster } from '../support/postgres.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { createRandom, reportFigure, SEED, sized } from './size.js'
import {
  completedTurns,
  DISK_BACKENDS,
  diskStore,
  loadStored,
  makeBackendWorld,
  postgresStore,
  seqsContiguous,
  type TrialStore,
} from './world.js'

const TRIALS = sized({ ci: 15, full: 200 })
/** Kill points are spread over this window; a turn takes about this long. */
const KILL_WINDOW_MS = 1500

const dirs: string[] = []
beforeAll(assertBuilt)
afterAll(() => {
  for (const dir of dirs) removeTempDir(dir)
})

/**
 * Every turn: a bash call, then an answer streamed in small delayed chunks. Decided from
 * the request (a killed run may have used one step or none), so one model serves all trials.
 */
const turnStep: ScriptStep = (request) => {
  const last = request.messages.at(-1)
  const user = [...request.messages].reverse().find((message) => message.role === 'user')
  const k = String(user?.content ?? '').replace('turn ', '')
  if (last?.role === 'tool') return { text: `answer ${k} `.repeat(20), delayMs: 3 }
  return { toolCalls: [{ name: 'bash', arguments: { command: `echo turn-${k}` } }], delayMs: 2 }
}

/** The trials on one store; `salt` keeps each backend's kill points apart under one seed. */
async function killTrials(store: TrialStore, salt: number): Promise<void> {
  const random = createRandom(SEED + salt)
  const dir = createTempDir('dsh-rel-kill-')
  dirs.push(dir)
  const model = await startLoopbackModel(Array.from({ length: 3 * (TRIALS + 1) }, () => turnStep))
  const world = makeBackendWorld(dir, model.baseUrl, store)
  const id = `kill-${store.name}`
  let committed: string[] = []
  let killed = 0
  let finishedFirst = 0
  const started = Date.now()
  for (let k = 0; k <= TRIALS; k++) {
    const last = k === TRIALS
    const run = spawnCli(['run', '--session-id', id, `turn ${k}`], {
      env: world.env,
      cwd: world.project,
      timeoutMs: 20_000,
    })
    let killTimer: NodeJS.Timeout | undefined
    if (!last) {
      const delay = Math.floor(random() * KILL_WINDOW_MS)
      killTimer = setTimeout(() => run.child.kill('SIGKILL'), delay)
    }
    const result = await run.done
    clearTimeout(killTimer)
    if (result.signal === 'SIGKILL') killed++
    else {
      expect(result.code, `trial ${k}: ${result.stderr}`).toBe(0)
      finishedFirst++
    }

    let stored: Awaited<ReturnType<typeof loadStored>> | undefined
    try {
      stored = await loadStored(world, store, id)
    } catch (error) {
      // Killed before the session was first created: nothing was committed yet.
      expect(committed, `trial ${k}: load failed: ${String(error)}`).toEqual([])
      continue
    }
    expect(seqsContiguous(stored), `trial ${k}`).toBe(true)
    const now = completedTurns(stored)
    expect(now.slice(0, committed.length), `trial ${k}: a committed turn was lost`).toEqual(committed)
    if (result.code === 0)
      expect(now.at(-1), `trial ${k}: a finished run's turn is committed`).toBe(`turn ${k}`)
    committed = now
  }
  await model.close()
  expect(committed.at(-1)).toBe(`turn ${TRIALS}`)
  reportFigure(`sigkill ${store.name}`, {
    trials: TRIALS,
    killed,
    finishedBeforeKill: finishedFirst,
    committedTurns: committed.length,
    lostTurns: 0,
    ms: Date.now() - started,
  })
}

const TITLE = `${TRIALS} random kill points lose no committed turn; the session always loads and resumes`

describe.each(DISK_BACKENDS)('SIGKILL during multi-turn runs (%s)', (backend) => {
  it(TITLE, () => killTrials(diskStore(backend), backend === 'jsonl' ? 1 : 2))
})

// A killed run's lease names a dead pid on this host, so the next run takes it over at once.
describePostgres(`SIGKILL during multi-turn runs (postgres)${describeSkipReason()}`, () => {
  const pg = useCluster()
  it(TITLE, () => killTrials(postgresStore(pg.cluster.url, pg.schema()), 3))
})
