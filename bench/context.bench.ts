// Context compaction (issue 23): compacting a 5,000-step session against deriving its
// history, the first request after an automatic compaction as a share of the window, and
// resuming a compacted 100,000-event session against a 5,000-event one. The model call is
// excluded by design: an in-process `ctx.llm` answers the summary request at once.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { defaultSystemPrompt } from '../src/agent/prompts/system-prompt.js'
import { resolveConfig, validateConfig } from '../src/config/index.js'
import { estimateTextTokens, TOKENS_PER_ASCII_CHAR } from '../src/context/index.js'
import { summaryOutputTokens } from '../src/context/summary-compactor.js'
import { createHarness, type Harness } from '../src/harness/index.js'
import { deriveHistory } from '../src/session/history.js'
import { Session } from '../src/session/session.js'
import type { ContextCompactedData } from '../src/session/types.js'
import {
  buildModelRequest,
  buildSession,
  copySession,
  NEVER,
  type SessionPlan,
  SUMMARY,
  startContextWorld,
} from './context-session.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const STEPS = 5_000
const STEPS_PER_TURN = 50
const ROUNDS = 9
const RESUME_ROUNDS = 5
const REQUEST_PAIRS = 25
const COMPACTION_RATIO = 2
const FIRST_REQUEST_SHARE = 0.25
const RESUME_RATIO = 1.2

const ms = (value: number) => `${value.toFixed(1)} ms`

/**
 * A full garbage collection before each timed part: the events a sample has just copied (a
 * fresh Session of up to 100k events) would otherwise be moved by the next scavenge, inside
 * the timed part. The flag is set at run time: the runner starts plain children.
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

export default async function run(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-context-'))
  const harness = await createHarness({
    config: resolveConfig(validateConfig('bench', { dshHome: home, persistence: { backend: 'jsonl' } }), {}),
    // Nothing is sent: resume only builds and sizes the first request.
    model: { baseUrl: 'http://127.0.0.1:9', apiKey: 'bench' },
  })
  try {
    const tools = harness.ctx.get('tools')!.schemas()
    const system = defaultSystemPrompt({ cwd: home, platform: 'linux x64', date: '2026-12-04' })
    const plan = { stepsPerTurn: STEPS_PER_TURN, system, tools }
    return [
      ...(await compactionRows(plan)),
      ...(await firstRequestRows(plan)),
      ...(await resumeRows(harness, home, plan)),
    ]
  } finally {
    await harness.dispose()
    rmSync(home, { recursive: true, force: true })
  }
}

type Plan = Pick<SessionPlan, 'stepsPerTurn' | 'system' | 'tools'>

/** Times `prepare` of the next request (the compaction it triggers, then the rebuild) against a fresh derivation. */
async function timeCompaction(
  label: string,
  source: Session,
  at: number,
  contextWindow: number | undefined,
): Promise<BenchRow> {
  const world = await startContextWorld(contextWindow)
  const compact: number[] = []
  const derive: number[] = []
  const timeDerive = () => {
    const events = source.events.slice(0, at)
    collectGarbage()
    const started = performance.now()
    deriveHistory(events)
    derive.push(performance.now() - started)
  }
  for (let round = 0; round <= ROUNDS; round++) {
    if (round % 2 === 1) timeDerive()
    const session = copySession(`${label}-${round}`, source, at)
    const rebuild = () => buildModelRequest(session, {}, NEVER)
    // As in a live session: the previous request derived the history and sized it.
    world.context.usage(session, rebuild())
    collectGarbage()
    const started = performance.now()
    await world.context.prepare(session, rebuild(), { rebuild })
    const elapsed = performance.now() - started
    const last = session.events.at(-1)!
    if (last.type !== 'context/compacted' || !(last.data as ContextCompactedData).summary)
      throw new Error(`${label}: prepare did not compact with a summary`)
    if (round % 2 === 0) timeDerive()
    // Round 0 warms up the code paths.
    if (round > 0) compact.push(elapsed)
    else derive.pop()
  }
  await world.dispose()
  const ratio = median(compact.map((elapsed, round) => elapsed / derive[round]!))
  return {
    name: `context: ${label} (${at.toLocaleString('en')} events; medians of ${ROUNDS} alternating pairs, ratio the median per-pair ratio)`,
    measured: `${ms(median(compact))} prepare: compact (prune + summary, model excluded) + rebuild`,
    baseline: `${ms(median(derive))} deriveHistory of the same log, fresh`,
    ratio,
    target: `≤ ${COMPACTION_RATIO}× deriving its history`,
    pass: ratio <= COMPACTION_RATIO,
  }
}

async function compactionRows(plan: Plan): Promise<BenchRow[]> {
  // Never compacted: the whole log is history; the window is sized so this request passes 85 %.
  const whole = await buildSession('whole', { ...plan, steps: STEPS })
  const sizer = await startContextWorld()
  const tokens = sizer.context.usage(whole, buildModelRequest(whole, {}, NEVER)).tokens
  await sizer.dispose()
  // The next request is the one after the last step/start: cut the closing events off.
  const open = whole.length - 2
  const first = await timeCompaction(
    `first compaction of a ${STEPS.toLocaleString('en')}-step session, ~${Math.round(tokens / 1000)}k tokens of history`,
    whole,
    open,
    Math.ceil(tokens / 0.9),
  )
  // Compacted along the way under a 1M window, as the loop does: the last automatic compaction.
  const compactions: number[] = []
  const world = await startContextWorld()
  const along = await buildSession('along', {
    ...plan,
    steps: STEPS,
    world,
    onCompacted: (info) => compactions.push(info.eventsBefore),
  })
  await world.dispose()
  const last = await timeCompaction(
    `last of ${compactions.length} automatic compactions of a ${STEPS.toLocaleString('en')}-step session, 1M window`,
    along,
    compactions.at(-1)!,
    undefined,
  )
  return [first, last]
}

async function firstRequestRows(plan: Plan): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  // The last case writes the longest summary the call allows (its whole output budget).
  const longest = (window: number) =>
    'x'.repeat(Math.floor(summaryOutputTokens(window) / TOKENS_PER_ASCII_CHAR))
  for (const [window, steps, summary] of [
    [1_000_000, STEPS, undefined],
    [128_000, 2_000, undefined],
    [128_000, 2_000, longest(128_000)],
  ] as const) {
    const world = await startContextWorld(window, summary)
    const shares: { share: number; summarised: boolean }[] = []
    await buildSession(`first-${window}`, {
      ...plan,
      steps,
      world,
      onCompacted: ({ tokens, data }) =>
        shares.push({ share: tokens / window, summarised: data.summary !== undefined }),
    })
    await world.dispose()
    const worst = Math.max(...shares.map(({ share }) => share))
    const summaries = shares.filter(({ summarised }) => summarised).length
    const pct = (share: number) => `${(share * 100).toFixed(1)} %`
    const kind =
      summary === undefined
        ? `a ${Math.round(estimateTextTokens(SUMMARY) / 100) / 10}k-token summary`
        : `a ${Math.round(summaryOutputTokens(window) / 100) / 10}k-token summary, its whole budget`
    rows.push({
      name: `context: first request after an automatic compaction, ${window.toLocaleString('en')}-token window, ${kind} (${steps.toLocaleString('en')} steps; ${shares.length} compactions, ${summaries} with a summary)`,
      measured: `worst ${pct(worst)} of the window (median ${pct(median(shares.map(({ share }) => share)))})`,
      baseline: `window ${window.toLocaleString('en')} tokens`,
      ratio: worst,
      target:
        summary === undefined
          ? `≤ ${FIRST_REQUEST_SHARE}× the window`
          : 'information only: the longest summary the call allows',
      pass: summary !== undefined || worst <= FIRST_REQUEST_SHARE,
      informational: summary !== undefined,
    })
  }
  return rows
}

/** Writes `session` through the harness's backend, as a stored session in `cwd`. */
async function store(harness: Harness, session: Session, cwd: string): Promise<void> {
  const backend = harness.ctx.get('sessionPersistence')!
  await backend.create({ ...session.header, cwd, createdAt: Date.now() })
  for (let index = 0; index < session.length; index += 1000)
    await backend.append(session.id, session.events.slice(index, index + 1000))
  await backend.release(session.id)
}

interface ResumeTimes {
  /** agents.resume (open: load, lease, Session) and sizing the first request (agent.contextUsage). */
  resume: number[]
  /** The backend's read-only load of the log. */
  load: number[]
  /** The first request from a loaded log: history derived fresh, the request built and sized. */
  request: number[]
}

async function timeResume(harness: Harness, id: string, times: ResumeTimes): Promise<number> {
  let started = performance.now()
  const agent = await harness.agents.resume({ resumeSessionId: id })
  const usage = agent.contextUsage()
  times.resume.push(performance.now() - started)
  await harness.agents.dispose(id)
  started = performance.now()
  await harness.ctx.get('sessionPersistence')!.load(id)
  times.load.push(performance.now() - started)
  return usage?.tokens ?? 0
}

/**
 * The first request from each loaded log (history derived fresh, the request built and sized),
 * the two sessions alternating on fresh Sessions; returns the per-pair ratios (big / small).
 */
async function timeFirstRequests(
  harness: Harness,
  times: Record<'big' | 'small', ResumeTimes>,
): Promise<number[]> {
  const backend = harness.ctx.get('sessionPersistence')!
  const loaded = { big: await backend.load('big'), small: await backend.load('small') }
  const world = await startContextWorld()
  const ratios: number[] = []
  for (let pair = 0; pair <= REQUEST_PAIRS; pair++) {
    const order = pair % 2 === 0 ? (['small', 'big'] as const) : (['big', 'small'] as const)
    const elapsed = { big: 0, small: 0 }
    for (const which of order) {
      const session = new Session(loaded[which].header, loaded[which].events)
      collectGarbage()
      const started = performance.now()
      world.context.usage(session, buildModelRequest(session, {}, NEVER))
      elapsed[which] = performance.now() - started
    }
    // Pair 0 warms up the code paths.
    if (pair === 0) continue
    times.big.request.push(elapsed.big)
    times.small.request.push(elapsed.small)
    ratios.push(elapsed.big / elapsed.small)
  }
  await world.dispose()
  return ratios
}

async function resumeRows(harness: Harness, home: string, plan: Plan): Promise<BenchRow[]> {
  const world = await startContextWorld()
  let summaries = 0
  const big = await buildSession('big', {
    ...plan,
    steps: 19_800,
    world,
    onCompacted: ({ data }) => {
      if (data.summary !== undefined) summaries++
    },
  })
  const small = await buildSession('small', { ...plan, steps: 990, world })
  await world.dispose()
  if (small.events.some((event) => event.type === 'context/compacted'))
    throw new Error('the 5k-event session compacted: its history would not be its whole log')
  await store(harness, big, home)
  await store(harness, small, home)
  const times = {
    big: { resume: [], load: [], request: [] } as ResumeTimes,
    small: { resume: [], load: [], request: [] } as ResumeTimes,
  }
  const tokens = { big: 0, small: 0 }
  for (let round = 0; round <= RESUME_ROUNDS; round++) {
    const order = round % 2 === 0 ? (['small', 'big'] as const) : (['big', 'small'] as const)
    for (const which of order) tokens[which] = await timeResume(harness, which, times[which])
  }
  // Round 0 warms up the code paths.
  for (const which of ['big', 'small'] as const) {
    times[which].resume.shift()
    times[which].load.shift()
  }
  const ratios = await timeFirstRequests(harness, times)
  const m = (which: 'big' | 'small', key: keyof ResumeTimes) => median(times[which][key])
  const ratio = median(ratios)
  const k = (n: number) => `${Math.round(n / 1000)}k`
  const bigLabel = `${big.length.toLocaleString('en')} events, ${summaries} summaries, history ${k(tokens.big)} tokens`
  const smallLabel = `${small.length.toLocaleString('en')} events, never compacted, history ${k(tokens.small)} tokens`
  return [
    {
      name: `context: resume's first request, compacted session (${bigLabel}) vs (${smallLabel}); medians of ${REQUEST_PAIRS} alternating pairs, ratio the median per-pair ratio`,
      measured: `${ms(m('big', 'request'))} history from the last boundary + request + sizing`,
      baseline: `${ms(m('small', 'request'))} the same for the 5k-event session`,
      ratio,
      target: `≤ ${RESUME_RATIO}× the 5k-event session`,
      pass: ratio <= RESUME_RATIO,
    },
    {
      name: `context: whole resume (agents.resume: JSONL load, lease, Session; then contextUsage), same sessions; median of ${RESUME_ROUNDS}`,
      measured: `${ms(m('big', 'resume'))} (of which the backend's load ${ms(m('big', 'load'))})`,
      baseline: `${ms(m('small', 'resume'))} (load ${ms(m('small', 'load'))})`,
      ratio: m('big', 'resume') / m('small', 'resume'),
      target: 'information only: loading reads the whole log',
      pass: true,
      informational: true,
    },
  ]
}
