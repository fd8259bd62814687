// Listing summaries read from a JSONL log's head and tail: the last turn number from
// small and large logs, open turns, and a last turn marker far from the end; the usage
// ledger from the last turn/end line, and logs from before ledgers left to a full scan.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { listSessions } from '../../../src/persistence/jsonl/catalog.js'
import { eventLines, headerLine } from '../../../src/persistence/jsonl/codec.js'
import { summarizeLogSync } from '../../../src/persistence/jsonl/log-summary.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { emptyLedger, ledgerOf } from '../../../src/usage/ledger.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-jsonl-summary-')
const header = headerLine({ version: 1, id: 's', createdAt: 1, delegationDepth: 0 })

/** Whole turns; each user message also holds the text of a turn marker, which must not count. */
function turns(count: number, filler = ''): SessionEvent[] {
  const events: SessionEvent[] = []
  const add = (type: string, data: unknown) => events.push({ seq: events.length, type, time: 1, data })
  for (let turn = 1; turn <= count; turn++) {
    add('turn/start', { turn })
    add('user/message', { text: `prompt ${turn} "type":"turn/start" ${filler}` })
    add('tool/result', { callId: 'c', content: filler })
    add('turn/end', { turn, reason: 'completed' })
  }
  return events
}

it('reads the last turn number from the end of small and large logs, open turns included', () => {
  const dir = makeDir()
  const summarize = (name: string, events: SessionEvent[]) => {
    writeFileSync(join(dir, name), header + eventLines(events, emptyLedger()))
    return summarizeLogSync(join(dir, name))
  }
  expect(summarize('empty.jsonl', [])).toMatchObject({ eventCount: 0, turns: 0 })
  expect(summarize('small.jsonl', turns(3))).toMatchObject({ eventCount: 12, turns: 3 })
  expect(summarize('large.jsonl', turns(40, 'x'.repeat(2_000)))).toMatchObject({ eventCount: 160, turns: 40 })
  const open = [...turns(2), { seq: 8, type: 'turn/start', time: 1, data: { turn: 3 } }]
  expect(summarize('open.jsonl', open)).toMatchObject({ turns: 3 })
  // The last turn marker lies far behind the end (a big event after it): found further back.
  const far = [
    ...turns(1),
    { seq: 4, type: 'context/added', time: 1, data: { source: 'x', text: 'y'.repeat(50_000) } },
  ]
  expect(summarize('far.jsonl', far)).toMatchObject({ eventCount: 5, turns: 1 })
})

/** Turns with a model switch, one step each, a charge, and a big tool result after the last step. */
function usedTurns(count: number): SessionEvent[] {
  const events: SessionEvent[] = []
  const add = (type: string, data: unknown, time = 1_764_640_800_000 + events.length * 600_000) =>
    events.push({ seq: events.length, type, time, data })
  for (let turn = 1; turn <= count; turn++) {
    add('turn/start', { turn })
    add('user/message', { text: `prompt ${turn}` })
    add('request/config', { model: turn % 2 ? 'deepseek-flash' : 'deepseek-v4-pro', system: '', tools: [] })
    const usage = {
      promptTokens: 1000 * turn,
      completionTokens: 10 * turn,
      totalTokens: 0,
      cachedTokens: 900,
    }
    add('assistant/message', { message: { content: `"type":"turn/end" ${turn}` }, usage })
    add('usage/charge', { source: 'web_search', amount: 0.005, currency: 'USD' })
    add('tool/result', { callId: 'c', content: 'z'.repeat(6_000) })
    add('turn/end', { turn, reason: 'completed' })
  }
  return events
}

it('reads the usage ledger from the last turn/end line, and folds an open turn after it', () => {
  const dir = makeDir()
  const summarize = (name: string, events: SessionEvent[]) => {
    writeFileSync(join(dir, name), header + eventLines(events, emptyLedger()))
    return summarizeLogSync(join(dir, name))
  }
  const closed = usedTurns(3)
  expect(summarize('closed.jsonl', closed)?.usage).toEqual(ledgerOf(closed))
  // An open turn: the last turn/end lies behind a big tool result; the step after it counts.
  const open = usedTurns(2)
  const at = (type: string, data: unknown) =>
    open.push({ seq: open.length, type, time: 1_764_700_000_000, data })
  at('turn/start', { turn: 3 })
  at('tool/result', { callId: 'c', content: 'y'.repeat(20_000) })
  at('assistant/message', {
    message: { content: '' },
    usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
  })
  const summary = summarize('open.jsonl', open)
  expect(summary?.usage).toEqual(ledgerOf(open))
  expect(summary?.usage.steps.some(([, , input]) => input === 7)).toBe(true)
  // No turn has ended: every event is folded.
  const first = open.slice(0, 5)
  expect(summarize('first.jsonl', first)?.usage).toEqual(ledgerOf(first))
})

it('leaves a log from before usage ledgers to a full scan, which lists it with the same ledger', async () => {
  const dir = makeDir()
  const events = usedTurns(2)
  writeFileSync(join(dir, 'old.jsonl'), header + eventLines(events, null))
  expect(summarizeLogSync(join(dir, 'old.jsonl'))).toBeUndefined()
  const root = makeDir()
  const { mkdirSync } = await import('node:fs')
  mkdirSync(join(root, 'bucket'))
  writeFileSync(join(root, 'bucket', 'old.jsonl'), header + eventLines(events, null))
  writeFileSync(
    join(root, 'bucket', 'new.jsonl'),
    header.replace('"s"', '"n"') + eventLines(events, emptyLedger()),
  )
  const listed = await listSessions(root)
  expect(listed.map((summary) => [summary.header.id, summary.usage])).toEqual(
    expect.arrayContaining([
      ['s', ledgerOf(events)],
      ['n', ledgerOf(events)],
    ]),
  )
  expect(listed).toHaveLength(2)
})
