// The persistence contract's compaction cases (issue 23), run for every backend from
// runPersistenceContract: `context/compacted` boundaries round-trip, the history derived
// from a stored log is the live one, resume and fork honour the boundary, and the usage
// ledger counts the summary call once.

import { expect, it } from 'vitest'
import type { ChatMessage } from '../../src/llm/types.js'
import { prunedToolOutput, summaryMessage } from '../../src/session/compaction-messages.js'
import { deriveHistory } from '../../src/session/history.js'
import type { ContextCompactedData, SessionEvent, SessionEventMap } from '../../src/session/types.js'
import { DEFAULT_PRICE_TABLE, ledgerOf, priceLedger } from '../../src/usage/index.js'
import { type Harness, LogBuilder, makeHeader, plain } from './fixtures.js'

export interface ContractHooks {
  start(): Promise<Harness>
  /** A restarted process over the same storage (the same instance for a non-durable backend). */
  restart(previous: Harness): Promise<Harness>
}

const SUMMARY = 'The user asked for the tests to pass; c1a showed two failures in the parser.'
const BIG = (label: string) => `${label}: ${'0123456789abcdef'.repeat(64)}\nNUL \u0000 and 💬 kept`
const SUMMARY_USAGE = { promptTokens: 3000, completionTokens: 400, totalTokens: 3400, cachedTokens: 2900 }

/** One tool-calling step of turn 1 with reasoning, as the loop logs it. */
function step(log: LogBuilder, stepNo: number, callId: string): LogBuilder {
  return log
    .add('step/start', { turn: 1, step: stepNo })
    .add('assistant/message', { message: { content: '', reasoning: `look at ${callId}` } })
    .add('tool/call', { callId, name: 'bash', arguments: `{"command":"cat ${callId}"}` })
    .add('tool/result', { callId, content: BIG(callId) })
    .add('step/end', { turn: 1, step: stepNo })
}

/**
 * A turn compacted twice while it ran: a prune-only boundary (c0, c1a), then a summary
 * that keeps the tail from the step of c1b and prunes c1b's output.
 */
function compactedLog(): { log: LogBuilder; batchEnds: number[] } {
  const log = new LogBuilder()
    .completedTurn(0, 'first')
    .add('turn/start', { turn: 1 })
    .add('user/message', { text: 'second: make the tests pass' })
  step(log, 0, 'c1a')
  const keptFrom = log.events.length
  step(log, 1, 'c1b')
  log.add('context/compacted', {
    trigger: 'auto',
    reason: 'threshold',
    pruned: ['c0', 'c1a'],
    tokensBefore: 5000,
    tokensAfter: 3000,
  })
  const afterPrune = log.events.length
  step(log, 2, 'c1c')
  log.add('context/compacted', {
    trigger: 'auto',
    reason: 'threshold',
    pruned: ['c1b'],
    summary: SUMMARY,
    keptFrom,
    tokensBefore: 4000,
    tokensAfter: 1200,
    model: 'deepseek-flash',
    usage: SUMMARY_USAGE,
  })
  const afterSummary = log.events.length
  log
    .add('step/start', { turn: 1, step: 3 })
    .add('assistant/message', { message: { content: 'The tests pass now.', reasoning: 'done' } })
    .add('step/end', { turn: 1, step: 3 })
    .add('turn/end', { turn: 1, reason: 'completed' })
  return { log, batchEnds: [afterPrune, afterSummary, log.events.length] }
}

/** The history the compacted log stands for: summary, the user's request, the kept tail. */
const EXPECTED_HISTORY: ChatMessage[] = [
  { role: 'user', content: summaryMessage(SUMMARY) },
  { role: 'user', content: 'second: make the tests pass' },
  {
    role: 'assistant',
    content: '',
    reasoning: 'look at c1b',
    toolCalls: [{ id: 'c1b', name: 'bash', arguments: '{"command":"cat c1b"}' }],
  },
  { role: 'tool', toolCallId: 'c1b', content: prunedToolOutput(BIG('c1b')) },
  {
    role: 'assistant',
    content: '',
    reasoning: 'look at c1c',
    toolCalls: [{ id: 'c1c', name: 'bash', arguments: '{"command":"cat c1c"}' }],
  },
  { role: 'tool', toolCallId: 'c1c', content: BIG('c1c') },
  { role: 'assistant', content: 'The tests pass now.', reasoning: 'done' },
]

function appendAll(
  session: { append(type: keyof SessionEventMap, data: never): unknown },
  events: SessionEvent[],
) {
  for (const event of events) session.append(event.type as keyof SessionEventMap, event.data as never)
}

/** The session totals' input tokens of a stored session's listed ledger. */
async function listedInputTokens(harness: Harness, id: string): Promise<number> {
  const summary = (await harness.backend().list()).find((candidate) => candidate.header.id === id)!
  const { events } = await harness.backend().load(id)
  expect(plain(summary.usage), id).toEqual(ledgerOf(events))
  return priceLedger(summary.usage, DEFAULT_PRICE_TABLE)!.inputTokens
}

export function compactionContract({ start, restart }: ContractHooks): void {
  it('round-trips compaction boundaries; the stored log derives the live history, from the last summary', async () => {
    let harness = await start()
    const { log, batchEnds } = compactedLog()
    const live = await harness.store().create({ id: 'compacted', cwd: '/work/compact' })
    let liveHistory: ChatMessage[] = []
    let from = 0
    for (const end of batchEnds) {
      // Derived after every event, as a live session extends its history.
      for (const event of log.events.slice(from, end)) {
        appendAll(live, [event])
        liveHistory = deriveHistory(live.events)
      }
      await harness.store().flush(live)
      from = end
    }
    const stored = plain(live.events)
    await harness.store().close(live)

    harness = await restart(harness)
    const loaded = await harness.backend().load('compacted')
    expect(plain(loaded.events)).toEqual(stored)
    // Byte for byte: the boundaries' data (and the tool outputs) come back as written.
    expect(loaded.events.map((event) => JSON.stringify(event.data))).toEqual(
      stored.map((event) => JSON.stringify(event.data)),
    )
    const compactions = loaded.events.filter((event) => event.type === 'context/compacted')
    expect(compactions.map((event) => (event.data as ContextCompactedData).summary)).toEqual([
      undefined,
      SUMMARY,
    ])
    expect(plain(deriveHistory(loaded.events))).toEqual(plain(liveHistory))
    expect(plain(liveHistory)).toEqual(EXPECTED_HISTORY)
  })

  it('resumes a compacted session: the next turn follows the summarised history, and is stored', async () => {
    let harness = await start()
    const { log } = compactedLog()
    await harness.backend().create(makeHeader('resume-compacted', { cwd: '/work/compact' }))
    await harness.backend().append('resume-compacted', log.events)
    await harness.backend().release('resume-compacted')

    harness = await restart(harness)
    const resumed = await harness.store().open('resume-compacted')
    expect(plain(deriveHistory(resumed.events))).toEqual(EXPECTED_HISTORY)
    resumed.append('turn/start', { turn: 2 })
    resumed.append('user/message', { text: 'third: now the docs' })
    resumed.append('assistant/message', { message: { content: 'Docs updated.' } })
    resumed.append('turn/end', { turn: 2, reason: 'completed' })
    const liveHistory = plain(deriveHistory(resumed.events))
    expect(liveHistory).toEqual([
      ...EXPECTED_HISTORY,
      { role: 'user', content: 'third: now the docs' },
      { role: 'assistant', content: 'Docs updated.' },
    ])
    await harness.store().close(resumed)

    harness = await restart(harness)
    const loaded = await harness.backend().load('resume-compacted')
    expect(loaded.events).toHaveLength(log.events.length + 4)
    expect(plain(deriveHistory(loaded.events))).toEqual(liveHistory)
  })

  it('a default fork of a session compacted by hand after its last turn starts from that compaction', async () => {
    let harness = await start()
    const log = new LogBuilder().completedTurn(0, 'first').completedTurn(1, 'second')
    const manual: ContextCompactedData = {
      trigger: 'manual',
      summary: 'Two questions answered; next: the docs.',
      keptFrom: 9,
      instructions: 'focus on the docs',
      tokensBefore: 900,
      tokensAfter: 120,
      usage: SUMMARY_USAGE,
    }
    log.add('context/compacted', manual)
    await harness.backend().create(makeHeader('hand-compacted', { cwd: '/work/compact' }))
    await harness.backend().append('hand-compacted', log.events)
    await harness.backend().release('hand-compacted')

    harness = await restart(harness)
    const source = await harness.store().read('hand-compacted')
    const child = await harness.store().fork(source, undefined, 'hand-compacted-fork')
    // The source's log and the marker that ends a fork's seed.
    expect(child.header.seedLength).toBe(log.events.length + 1)
    expect(child.events.at(-2)!.type).toBe('context/compacted')
    expect(child.events.at(-1)!.type).toBe('session/forked')
    const history = plain(deriveHistory(child.events))
    expect(history[0]).toEqual({ role: 'user', content: summaryMessage(manual.summary!) })
    expect(history).toEqual(plain(deriveHistory(source.events)))
    await harness.store().close(child)

    harness = await restart(harness)
    const stored = await harness.backend().load('hand-compacted-fork')
    expect(plain(stored.events.slice(0, -1))).toEqual(log.events)
    expect(stored.events.at(-1)).toMatchObject({ type: 'session/forked', ignorable: true })
    expect(plain(deriveHistory(stored.events))).toEqual(history)
  })

  it("counts each summary call's usage once in the listed ledger, also after the last turn and across appends", async () => {
    let harness = await start()
    const log = new LogBuilder().paidTurn(0, 'first', 'deepseek-flash', 1000)
    // Within a turn (its turn/end comes later) and after the last turn (a manual /compact).
    const withinTurn = new LogBuilder(log.events.length)
      .add('turn/start', { turn: 1 })
      .add('user/message', { text: 'second' })
      .add('context/compacted', { trigger: 'auto', tokensBefore: 9, tokensAfter: 3, pruned: [] })
      .add('context/compacted', {
        trigger: 'auto',
        summary: 's1',
        keptFrom: log.events.length + 1,
        tokensBefore: 9,
        tokensAfter: 3,
        usage: { promptTokens: 700, completionTokens: 70, totalTokens: 770 },
      })
      .add('turn/end', { turn: 1, reason: 'completed' })
      .add('context/compacted', {
        trigger: 'manual',
        summary: 's2',
        keptFrom: log.events.length + 5,
        tokensBefore: 9,
        tokensAfter: 3,
        usage: SUMMARY_USAGE,
      })
    const events = [...log.events, ...withinTurn.events]
    await harness.backend().create(makeHeader('ledger-compacted'))
    await harness.backend().append('ledger-compacted', events.slice(0, 12))
    await harness.backend().append('ledger-compacted', events.slice(12))
    await harness.backend().release('ledger-compacted')
    const paid = priceLedger(ledgerOf(log.events), DEFAULT_PRICE_TABLE)!.inputTokens
    expect(await listedInputTokens(harness, 'ledger-compacted')).toBe(paid + 700 + 3000)

    harness = await restart(harness)
    expect(await listedInputTokens(harness, 'ledger-compacted')).toBe(paid + 700 + 3000)
    // Resumed: the next turn's ledger carries the compactions on, without counting them again.
    const resumed = await harness.store().open('ledger-compacted')
    for (const event of new LogBuilder().paidTurn(2, 'third', 'deepseek-flash', 10).events)
      resumed.append(event.type as keyof SessionEventMap, event.data as never)
    await harness.store().close(resumed)
    harness = await restart(harness)
    expect(await listedInputTokens(harness, 'ledger-compacted')).toBe(paid + 700 + 3000 + 10 + 20)
  })
}
