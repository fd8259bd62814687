// Concurrent agents: N agents × M bash calls in one process, and P `dsh run` processes in
// one home, each call recording the identity it was given: 0 crossovers (every call sees
// its own DSH_SESSION_ID and DSH_SESSION_JSONL), and 0 processes left after a normal exit,
// SIGINT, SIGTERM or SIGHUP.

import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScriptRequest } from '../../src/llm/index.js'
import { assertBuilt, spawnCli } from '../apps/cli/cli.js'
import { startTestHarness } from '../support/harness.js'
import type { ScriptStep } from '../support/loopback-model.js'
import { startLoopbackModel } from '../support/loopback-model.js'
import { processesWith } from '../support/processes.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { reportFigure, sized } from './size.js'
import { makeBackendWorld } from './world.js'

const AGENTS = sized({ ci: 10, full: 50 })
const CALLS = sized({ ci: 5, full: 20 })
const PROCESSES = sized({ ci: 4, full: 20 })

const dirs: string[] = []
beforeAll(assertBuilt)
afterAll(() => {
  for (const dir of dirs) removeTempDir(dir)
})

function tempDir(): string {
  const dir = createTempDir('dsh-rel-conc-')
  dirs.push(dir)
  return dir
}

/** The session id a request belongs to: its first user message is `I am <id>`. */
function sessionOf(request: ScriptRequest): string {
  const user = request.messages.find((message) => message.role === 'user')
  return String(user?.content ?? '').replace(/^I am /, '')
}

/** A command that records the identity it runs under in `<ids>/<expected id>.<n>`. */
function recordIdentity(ids: string, id: string, n: number): string {
  return `printf '%s|%s' "$DSH_SESSION_ID" "$DSH_SESSION_JSONL" > ${ids}/${id}.${n}`
}

/** Every recorded identity file: [expected id, seen id, seen JSONL path]. */
function recorded(ids: string): [string, string, string][] {
  return readdirSync(ids).map((file) => {
    const [seenId = '', seenPath = ''] = readFileSync(join(ids, file), 'utf8').split('|')
    return [file.replace(/\.\d+$/, ''), seenId, seenPath]
  })
}

function crossovers(ids: string): string[] {
  return recorded(ids)
    .filter(
      ([expected, seenId, seenPath]) => seenId !== expected || basename(seenPath) !== `${expected}.jsonl`,
    )
    .map(([expected, seenId, seenPath]) => `${expected} saw ${seenId} ${seenPath}`)
}

it(`${AGENTS} agents × ${CALLS} bash calls in one process: no identity crossover`, async () => {
  const dir = tempDir()
  const ids = join(dir, 'ids')
  mkdirSync(ids)
  const step: ScriptStep = (request) => {
    const id = sessionOf(request)
    const done = request.messages.filter((message) => message.role === 'tool').length
    if (done >= CALLS) return { text: `done ${id}` }
    return { toolCalls: [{ name: 'bash', arguments: { command: recordIdentity(ids, id, done) } }] }
  }
  const started = Date.now()
  const test = await startTestHarness({ script: Array.from({ length: AGENTS * (CALLS + 1) }, () => step) })
  try {
    const agents = await Promise.all(
      Array.from({ length: AGENTS }, (_, k) =>
        test.harness.agents.create({ sessionId: `agent-${k}`, meta: { cwd: dir } }),
      ),
    )
    const results = await Promise.all(agents.map((agent, k) => agent.prompt(`I am agent-${k}`)))
    for (const result of results) expect(result.reason).toBe('completed')
  } finally {
    await test.close()
  }
  expect(recorded(ids)).toHaveLength(AGENTS * CALLS)
  expect(crossovers(ids)).toEqual([])
  reportFigure('concurrency in-process', {
    agents: AGENTS,
    callsEach: CALLS,
    calls: AGENTS * CALLS,
    crossovers: 0,
    ms: Date.now() - started,
  })
})

const ENDINGS = [
  ['exit', 0],
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const

describe.each(ENDINGS)(`${PROCESSES} dsh run processes in one home, ended by %s`, (ending, exitCode) => {
  it.each(['jsonl', 'sqlite'] as const)('%s: no identity crossover, no process left', async (backend) => {
    const dir = tempDir()
    const ids = join(dir, 'ids')
    const started = join(dir, 'started')
    mkdirSync(ids)
    mkdirSync(started)
    const tag = String(Math.floor(Math.random() * 1e6)).padStart(6, '0')
    const step: ScriptStep = (request) => {
      const id = sessionOf(request)
      if (request.messages.some((message) => message.role === 'tool')) return { text: `done ${id}` }
      const hold = ending === 'exit' ? '' : `; sleep 9${tag}.5`
      return {
        toolCalls: [
          { name: 'bash', arguments: { command: `sleep 8${tag}.5`, run_in_background: true } },
          {
            name: 'bash',
            arguments: { command: `${recordIdentity(ids, id, 0)}; touch ${started}/${id}${hold}` },
          },
        ],
      }
    }
    const model = await startLoopbackModel(Array.from({ length: 2 * PROCESSES }, () => step))
    const world = makeBackendWorld(dir, model.baseUrl, backend)
    const begun = Date.now()
    try {
      const runs = Array.from({ length: PROCESSES }, (_, k) =>
        spawnCli(['run', '--session-id', `proc-${k}`, `I am proc-${k}`], {
          env: world.env,
          cwd: world.project,
          timeoutMs: 90_000,
        }),
      )
      if (ending !== 'exit') {
        await until(() => readdirSync(started).length === PROCESSES, 60_000, 'every command to start')
        await until(() => processesWith(`9${tag}.5`).length === PROCESSES, 15_000, 'every foreground sleep')
        await until(() => processesWith(`8${tag}.5`).length === PROCESSES, 15_000, 'every background job')
        for (const run of runs) run.child.kill(ending)
      }
      const results = await Promise.all(runs.map((run) => run.done))
      for (const result of results) expect(result.code, result.stderr).toBe(exitCode)
      expect(processesWith(tag), 'leaked processes').toEqual([])
      if (backend === 'jsonl') {
        const buckets = readdirSync(join(world.home, 'sessions'))
        const locks = buckets
          .flatMap((b) => readdirSync(join(world.home, 'sessions', b)))
          .filter((f) => f.endsWith('.lock'))
        expect(locks).toEqual([])
      }
    } finally {
      await model.close()
    }
    expect(recorded(ids)).toHaveLength(PROCESSES)
    const crossed = recorded(ids).filter(([expected, seenId, seenPath]) =>
      backend === 'jsonl'
        ? seenId !== expected || basename(seenPath) !== `${expected}.jsonl`
        : seenId !== expected || seenPath !== '',
    )
    expect(crossed).toEqual([])
    expect(existsSync(started)).toBe(true)
    reportFigure(`concurrency processes ${ending} ${backend}`, {
      processes: PROCESSES,
      crossovers: 0,
      leaked: 0,
      ms: Date.now() - begun,
    })
  })
})
