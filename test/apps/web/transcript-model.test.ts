// The session page's transcript model: events fold into items (tool cards get their
// results, exit codes and sub-agent links), repeats are ignored, live output is separate.

import { describe, expect, it } from 'vitest'
import { diffLines, LiveTurn, TranscriptModel } from '../../../src/apps/web/client/transcript.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { deriveUsage, type PriceTable } from '../../../src/usage/index.js'

/** Simple rates per 1M tokens, so costs can be checked by hand. */
const PRICES: PriceTable = {
  currency: 'USD',
  models: { 'test-model': { cacheHit: 1, cacheMiss: 2, output: 4 } },
  peakHours: { utcOffsetMinutes: 0, weekdays: [], ranges: [] },
}

function events(list: [string, unknown][]): SessionEvent[] {
  return list.map(([type, data], seq) => ({ seq, type, time: seq, data }))
}

describe('web transcript model', () => {
  it('folds a turn into items with tool cards, exit codes, sub-agent links and usage with cost', () => {
    const model = new TranscriptModel(PRICES)
    const log = events([
      ['turn/start', { turn: 1 }],
      ['request/config', { model: 'test-model' }],
      ['user/message', { text: 'hi' }],
      [
        'assistant/message',
        {
          message: { content: '', reasoning: 'hmm' },
          usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110, cachedTokens: 80 },
        },
      ],
      ['tool/call', { callId: 'a', name: 'bash', arguments: '{"command":"false"}' }],
      ['tool/call', { callId: 'b', name: 'subagent', arguments: '{"prompt":"x"}' }],
      ['tool/result', { callId: 'a', content: '(no output)\n[exit code: 1]' }],
      ['tool/result', { callId: 'b', content: '[sub-agent session parent-sub-1]\nanswer' }],
      [
        'assistant/message',
        { message: { content: 'done' }, usage: { promptTokens: 50, completionTokens: 5, totalTokens: 55 } },
      ],
      ['turn/end', { turn: 1, reason: 'completed' }],
    ])
    for (const event of log) model.add(event)
    expect(model.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'turn-end',
    ])
    const [bash, sub] = model.items.filter((item) => item.kind === 'tool')
    expect(bash!.kind === 'tool' && bash!.tool).toMatchObject({ command: 'false', exitCode: 1 })
    expect(sub!.kind === 'tool' && sub!.tool.subSession).toBe('parent-sub-1')
    const end = model.items.at(-1)
    expect(end).toMatchObject({
      kind: 'turn-end',
      currency: 'USD',
      usage: { inputTokens: 150, outputTokens: 15, cacheHitTokens: 80, cacheMissTokens: 70 },
    })
    // The turn's cost is the one derivation's: 80 hit + 70 miss + 15 out at 1/2/4 per 1M.
    const cost = end?.kind === 'turn-end' ? end.usage.cost : undefined
    expect(cost).toBeCloseTo((80 * 1 + 70 * 2 + 15 * 4) / 1_000_000, 12)
    expect(cost).toBe(deriveUsage(log, PRICES).turns.get(1)?.cost)
    // A repeated event (two sources overlapping) changes nothing.
    expect(model.add(log[3]!)).toBe(false)
    expect(model.items).toHaveLength(6)
  })

  it('adds a paid tool call to the turn and says "cost unknown" for a model without a price', () => {
    const model = new TranscriptModel(PRICES)
    const usage = { promptTokens: 10, completionTokens: 1, totalTokens: 11 }
    const log = events([
      ['turn/start', { turn: 1 }],
      ['request/config', { model: 'test-model' }],
      ['assistant/message', { message: { content: 'a' }, usage }],
      ['usage/charge', { amount: 0.5, currency: 'USD', source: 'web_search' }],
      ['turn/end', { turn: 1, reason: 'completed' }],
      ['turn/start', { turn: 2 }],
      ['request/config', { model: 'unpriced' }],
      ['assistant/message', { message: { content: 'b' }, usage }],
      ['turn/end', { turn: 2, reason: 'completed' }],
    ])
    for (const event of log) model.add(event)
    const ends = model.items.filter((item) => item.kind === 'turn-end')
    expect(ends.map((item) => item.usage.cost)).toEqual([0.5 + (10 * 2 + 1 * 4) / 1_000_000, null])
  })

  it('keeps streamed text live until the assistant message is committed', () => {
    const live = new LiveTurn()
    live.handle({ type: 'turn-start', turn: 1, prompt: 'x' })
    live.handle({ type: 'text-delta', text: 'par' })
    live.handle({ type: 'text-delta', text: 'tial' })
    live.handle({ type: 'tool-start', callId: 'c', name: 'bash', arguments: '{"command":"ls"}' })
    expect(live.text).toBe('partial')
    expect(live.tools.get('c')?.command).toBe('ls')
    live.committed({ seq: 0, type: 'assistant/message', time: 0, data: { message: { content: 'partial' } } })
    live.committed({
      seq: 1,
      type: 'tool/call',
      time: 0,
      data: { callId: 'c', name: 'bash', arguments: '{}' },
    })
    expect(live.text).toBe('')
    expect(live.tools.size).toBe(0)
  })

  it('marks a compaction boundary in the whole history, and a compaction in progress live', () => {
    const model = new TranscriptModel(PRICES)
    const boundary = {
      trigger: 'manual',
      summary: '1. Task: x',
      keptFrom: 2,
      instructions: 'focus on the tests',
      tokensBefore: 812_000,
      tokensAfter: 41_000,
    }
    const log = events([
      ['user/message', { text: 'before' }],
      ['assistant/message', { message: { content: 'earlier answer' } }],
      ['context/compacted', boundary],
      ['user/message', { text: 'after' }],
    ])
    for (const event of log) model.add(event)
    // Nothing before the boundary is dropped from the transcript.
    expect(model.items.map((item) => item.kind)).toEqual(['user', 'assistant', 'compaction', 'user'])
    expect(model.items[2]).toEqual({ kind: 'compaction', key: 'e2', compaction: boundary })

    const live = new LiveTurn()
    live.handle({ type: 'compaction', phase: 'start', trigger: 'auto', reason: 'threshold' })
    expect(live.compacting).toMatchObject({ trigger: 'auto', reason: 'threshold' })
    live.handle({
      type: 'compaction',
      phase: 'end',
      trigger: 'auto',
      result: { tokensBefore: 2, tokensAfter: 1, pruned: 0, summarised: true },
    })
    expect(live.compacting).toBeUndefined()
    // The boundary reaching the log ends it too (the end notice may be missed).
    live.handle({ type: 'compaction', phase: 'start', trigger: 'manual' })
    live.committed(log[2]!)
    expect(live.compacting).toBeUndefined()
  })

  it('finds the unified diff of an edit result', () => {
    expect(diffLines('Edited a.txt\n--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-x\n+y')).toEqual([
      '--- a.txt',
      '+++ a.txt',
      '@@ -1 +1 @@',
      '-x',
      '+y',
    ])
    expect(diffLines('no diff here')).toEqual([])
  })
})
