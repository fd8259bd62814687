// Usage and cost from a session log: per step with the model of its request and the rate
// of its hour, per turn and per session, and charges of paid tools in the same totals.

import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/index.js'
import {
  DEFAULT_PRICE_TABLE,
  deriveUsage,
  formatUsageLine,
  isPeak,
  ratesAt,
  resolvePriceTable,
} from '../../src/usage/index.js'

// 2026-12-02 is a Wednesday. Beijing 10:00 = 02:00 UTC (peak); Beijing 13:00 = 05:00 UTC (off-peak).
const PEAK = Date.UTC(2026, 11, 2, 2, 0)
const OFF_PEAK = Date.UTC(2026, 11, 2, 5, 0)
const SATURDAY_PEAK_HOUR = Date.UTC(2026, 11, 5, 2, 0)

let seq = 0
const event = (type: string, data: unknown, time = OFF_PEAK): SessionEvent => ({
  seq: seq++,
  type,
  time,
  data,
})
const usage = (prompt: number, hit: number, completion: number, reasoning = 0) => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedTokens: hit,
  ...(reasoning ? { reasoningTokens: reasoning } : {}),
})

describe('price table', () => {
  it('uses peak rates on Beijing weekday hours only', () => {
    const hours = DEFAULT_PRICE_TABLE.peakHours
    expect(isPeak(hours, PEAK)).toBe(true)
    expect(isPeak(hours, OFF_PEAK)).toBe(false)
    expect(isPeak(hours, SATURDAY_PEAK_HOUR)).toBe(false)
    expect(ratesAt(DEFAULT_PRICE_TABLE, 'deepseek-flash', PEAK)?.output).toBe(1.2)
    expect(ratesAt(DEFAULT_PRICE_TABLE, 'deepseek-flash', OFF_PEAK)?.output).toBe(0.6)
    expect(ratesAt(DEFAULT_PRICE_TABLE, 'unknown', OFF_PEAK)).toBeUndefined()
  })

  it('merges configured models over the defaults, and drops USD defaults for another currency', () => {
    const flat = { cacheHit: 1, cacheMiss: 2, output: 3 }
    expect(resolvePriceTable({ models: { mine: flat } }).models['deepseek-flash']).toBeDefined()
    const cny = resolvePriceTable({ currency: 'CNY', models: { mine: flat } })
    expect(Object.keys(cny.models)).toEqual(['mine'])
  })
})

describe('deriveUsage', () => {
  it('sums steps per turn and session, priced by model and hour, plus tool charges', () => {
    const events = [
      event('turn/start', { turn: 1 }),
      event('request/config', { model: 'deepseek-flash', system: '', tools: [] }),
      event('assistant/message', { message: { content: '' }, usage: usage(1_000_000, 0, 0) }, PEAK),
      event('assistant/message', {
        message: { content: '' },
        usage: usage(1_000_000, 1_000_000, 1_000_000, 10),
      }),
      event('turn/end', { turn: 1, reason: 'completed' }),
      event('turn/start', { turn: 2 }),
      event('request/config', { model: 'deepseek-v4-pro', system: '', tools: [] }),
      event('assistant/message', { message: { content: '' }, usage: usage(0, 0, 1_000_000) }),
      event('usage/charge', { source: 'web_search', amount: 0.005, currency: 'USD' }),
      event('turn/end', { turn: 2, reason: 'completed' }),
    ]
    const derived = deriveUsage(events, DEFAULT_PRICE_TABLE)
    const one = derived.turns.get(1)!
    expect(one).toMatchObject({
      inputTokens: 2_000_000,
      cacheHitTokens: 1_000_000,
      cacheMissTokens: 1_000_000,
      outputTokens: 1_000_000,
      reasoningTokens: 10,
    })
    // 1M misses at peak (0.30) + 1M hits and 1M output off-peak (0.003 + 0.6).
    expect(one.cost).toBeCloseTo(0.903, 9)
    expect(derived.turns.get(2)!.cost).toBeCloseTo(1.98 + 0.005, 9)
    expect(derived.session.cost).toBeCloseTo(0.903 + 1.985, 9)
    expect(derived.session.outputTokens).toBe(2_000_000)
  })

  it('reports an unknown cost when a model has no price', () => {
    const events = [
      event('request/config', { model: 'my-model', system: '', tools: [] }),
      event('assistant/message', { message: { content: '' }, usage: usage(10, 0, 5) }),
    ]
    const { session } = deriveUsage(events, DEFAULT_PRICE_TABLE)
    expect(session.cost).toBeNull()
    expect(formatUsageLine(session, 'USD')).toBe('10 in (0% cache hit) · 5 out · cost unknown')
  })
})
