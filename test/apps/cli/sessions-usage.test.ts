// `dsh sessions list`'s USAGE column from the summaries' usage ledgers: the same tokens and
// cost as pricing every step of the whole log, for sessions with several turns and models,
// a fork (its copied seed counts), and a log written before ledgers (scanned whole, left as it is).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, expect, it } from 'vitest'
import { eventLines, headerLine } from '../../../src/persistence/jsonl/codec.js'
import { bucketFor, encodeSessionId } from '../../../src/persistence/jsonl/layout.js'
import type { SessionEvent } from '../../../src/session/types.js'
import {
  DEFAULT_PRICE_TABLE,
  formatUsageCell,
  formatUsageLine,
  type UsageTotals,
} from '../../../src/usage/index.js'
import { type LoopbackModel, startLoopbackModel } from '../../support/loopback-model.js'
import { pricedStepByStep } from '../../support/priced-step-by-step.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-usage-')
let model: LoopbackModel | undefined

beforeAll(assertBuilt)
afterEach(async () => {
  await model?.close()
  model = undefined
})

/** What the column showed before ledgers: every step priced on its own, in log order. */
const pricedBefore = (events: readonly SessionEvent[], range: { from?: number; to?: number } = {}) =>
  pricedStepByStep(events, DEFAULT_PRICE_TABLE, range)

/** A log from before ledgers: two turns with two models, a tool charge, no ledger on its turn/end lines. */
function oldLog(): SessionEvent[] {
  const time = Date.UTC(2026, 11, 2, 2, 30) // a Wednesday, peak hours in Beijing
  const usage = (prompt: number, hit: number, completion: number) => ({
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: prompt + completion,
    cachedTokens: hit,
    reasoningTokens: 5,
  })
  const events: Omit<SessionEvent, 'seq'>[] = [
    { type: 'turn/start', time, data: { turn: 1 } },
    { type: 'user/message', time, data: { text: 'an old question' } },
    { type: 'request/config', time, data: { model: 'deepseek-flash', system: 's', tools: [] } },
    {
      type: 'assistant/message',
      time,
      data: { message: { content: 'a' }, usage: usage(12_000, 9_000, 300) },
    },
    { type: 'usage/charge', time, data: { source: 'web_search', amount: 0.005, currency: 'USD' } },
    { type: 'turn/end', time, data: { turn: 1, reason: 'completed' } },
    { type: 'turn/start', time: time + 3 * 3_600_000, data: { turn: 2 } },
    {
      type: 'request/config',
      time: time + 3 * 3_600_000,
      data: { model: 'deepseek-v4-pro', system: 's', tools: [] },
    },
    {
      type: 'assistant/message',
      time: time + 3 * 3_600_000, // 13:30 in Beijing: off-peak
      data: { message: { content: 'b' }, usage: usage(30_000, 20_000, 900) },
    },
    { type: 'turn/end', time: time + 3 * 3_600_000, data: { turn: 2, reason: 'completed' } },
  ]
  return events.map((event, seq) => ({ seq, ...event }))
}

it('shows the same tokens and cost as pricing each whole log: turns, models, a fork, an old log', async () => {
  model = await startLoopbackModel(
    [
      { reasoning: 'Look.', toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] },
      { reasoning: 'Done.', text: 'first' },
      { reasoning: 'Again.', text: 'second, on another model' },
      { reasoning: 'Fork.', text: 'in the fork' },
    ],
    { strict: true },
  )
  const w = makeWorld(makeDir(), model.baseUrl)
  const run = async (args: string[]) => {
    const result = await runCli(['run', ...args], { env: w.env, cwd: w.project })
    expect(result.code, result.stderr).toBe(0)
    return jsonLines(result.stdout)
  }
  await run(['--json', '--session-id', 'multi', 'one'])
  await run(['--json', '--resume', 'multi', '--model', 'deepseek-v4-pro', 'two'])
  const forkId = (await run(['--json', '--fork', 'multi', 'three']))[0]!.sessionId as string
  const oldPath = join(w.home, 'sessions', bucketFor(w.project), `${encodeSessionId('old-format')}.jsonl`)
  mkdirSync(join(oldPath, '..'), { recursive: true, mode: 0o700 })
  const old = headerLine({ version: 1, id: 'old-format', createdAt: 1, cwd: w.project, delegationDepth: 0 })
  writeFileSync(oldPath, old + eventLines(oldLog(), null), { mode: 0o600 })

  const listed = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
  expect(listed.code, listed.stderr).toBe(0)
  const rows = JSON.parse(listed.stdout) as {
    id: string
    path: string | null
    usage: UsageTotals
    inheritedUsage?: UsageTotals
  }[]
  expect(rows.map((row) => row.id).sort()).toEqual([forkId, 'multi', 'old-format'].sort())
  const table = (await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })).stdout
  const expected = new Map<string, UsageTotals>()
  for (const { id, usage, inheritedUsage } of rows) {
    const shown = await runCli(['sessions', 'show', '--json', id], { env: w.env, cwd: w.project })
    const [header, ...lines] = jsonLines(shown.stdout) as [{ seedLength?: number }, ...SessionEvent[]]
    const events = lines as SessionEvent[]
    // A fork's own usage is what came after its seed; the seed's is listed apart as inherited.
    const seedLength = header.seedLength ?? 0
    const before = pricedBefore(events, { from: seedLength })
    if (seedLength > 0) {
      const inherited = pricedBefore(events, { to: seedLength })
      expect({ ...inheritedUsage, cost: null }, id).toEqual({ ...inherited, cost: null })
    } else expect(inheritedUsage, id).toBeUndefined()
    if (id === 'multi') {
      const models = events
        .filter((event) => event.type === 'request/config')
        .map((event) => (event.data as { model?: string }).model)
      expect(models).toEqual(['deepseek-flash', 'deepseek-v4-pro'])
    }
    expected.set(id, before)
    expect({ ...usage, cost: null }, id).toEqual({ ...before, cost: null })
    expect(usage.cost, id).toBeCloseTo(before.cost!, 12)
    const line = table.split('\n').find((text) => text.startsWith(`${id} `))
    expect(line, id).toContain(` ${formatUsageCell(before, 'USD')} `)
  }
  // Both models were priced, the fork counts its own turn, the old log has both turns.
  const multi = expected.get('multi')!
  expect(multi.inputTokens).toBeGreaterThan(0)
  expect(expected.get(forkId)!.inputTokens).toBeGreaterThan(0)
  const oldTotals = expected.get('old-format')!
  expect(oldTotals).toMatchObject({ inputTokens: 42_000, cacheHitTokens: 29_000, outputTokens: 1_200 })
  // Peak flash (0.006 hit, 0.30 miss, 1.20 out), off-peak pro (0.022, 0.66, 1.98), the charge.
  const cost = (9_000 * 0.006 + 3_000 * 0.3 + 300 * 1.2 + 20_000 * 0.022 + 10_000 * 0.66 + 900 * 1.98) / 1e6
  expect(oldTotals.cost).toBeCloseTo(cost + 0.005, 12)
  // Listing never rewrites a log: the old one is as it was written.
  expect(readFileSync(oldPath, 'utf8')).toBe(old + eventLines(oldLog(), null))
  // The fork's log copied the parent's first turn (its seed): its tokens count in the fork's.
  const forkRow = rows.find((row) => row.id === forkId)!
  const [forkHeader, ...forkLines] = jsonLines(readFileSync(forkRow.path!, 'utf8'))
  const seedLength = (forkHeader as { seedLength: number }).seedLength
  const forkEvents = forkLines as unknown as SessionEvent[]
  expect(seedLength).toBeGreaterThan(0)
  expect(pricedBefore(forkEvents.slice(0, seedLength)).inputTokens).toBeGreaterThan(0)
  // Listed: only the fork's own requests, so adding up the rows counts each request once;
  // the copied turn's tokens are the parent's, listed apart.
  expect(forkRow.usage.inputTokens).toBe(pricedBefore(forkEvents, { from: seedLength }).inputTokens)
  expect(forkRow.inheritedUsage!.inputTokens).toBe(pricedBefore(forkEvents, { to: seedLength }).inputTokens)
  const shownFork = await runCli(['sessions', 'show', forkId], { env: w.env, cwd: w.project })
  expect(shownFork.stdout).toContain(
    `inherited from the parent's turns: ${formatUsageLine(forkRow.inheritedUsage!, 'USD')}`,
  )
})
