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

  it('switches exactly at the Beijing peak boundaries: 09:00 and 14:00 peak, 12:00 and 18:00 off-peak', () => {
    const hours = DEFAULT_PRICE_TABLE.peakHours
    // Beijing wall-clock time on Wednesday 2026-12-02 (UTC+8), as epoch ms.
    const beijing = (hour: number, minute = 0, ms = 0) => Date.UTC(2026, 11, 2, hour - 8, minute, 0, ms)
    const cases: [string, number, boolean][] = [
      ['08:59:59.999', beijing(8, 59, 59_999), false],
      ['09:00', beijing(9), true],
      ['11:59:59.999', beijing(11, 59, 59_999), true],
      ['12:00', beijing(12), false],
      ['13:59:59.999', beijing(13, 59, 59_999), false],
      ['14:00', beijing(14), true],
      ['17:59:59.999', beijing(17, 59, 59_999), true],
      ['18:00', beijing(18), false],
    ]
    for (const [label, time, peak] of cases) {
      expect(isPeak(hours, time), label).toBe(peak)
      expect(ratesAt(DEFAULT_PRICE_TABLE, 'deepseek-flash', time)?.output, label).toBe(peak ? 1.2 : 0.6)
    }
    // Monday 09:00 Beijing is Monday 01:00 UTC; Saturday 09:00 Beijing is off-peak.
    expect(isPeak(hours, Date.UTC(2026, 11, 7, 1, 0))).toBe(true)
    expect(isPeak(hours, Date.UTC(2026, 11, 5, 1, 0))).toBe(false)
  })

  it('judges the weekday and minutes on the table clock, not on UTC', () => {
    // New York (UTC-5), Fridays 20:30-23:15: Friday 20:30 there is Saturday 01:30 UTC.
    const hours = { utcOffsetMinutes: -300, weekdays: [5], ranges: [[20.5, 23.25]] as [number, number][] }
    const newYork = (day: number, hour: number, minute = 0) => Date.UTC(2026, 11, day, hour + 5, minute)
    expect(isPeak(hours, newYork(4, 20, 30))).toBe(true) // Friday 2026-12-04, 20:30
    expect(isPeak(hours, newYork(4, 20, 29))).toBe(false)
    expect(isPeak(hours, newYork(4, 23, 14))).toBe(true)
    expect(isPeak(hours, newYork(4, 23, 15))).toBe(false)
    expect(isPeak(hours, newYork(3, 21))).toBe(false) // Thursday
    expect(isPeak(hours, newYork(5, 21))).toBe(false) // Saturday
  })

  it('merges configured models over the defaults, and drops USD defaults for another currency', () => {
    const flat = { cacheHit: 1, cacheMiss: 2, output: 3 }
    expect(resolvePriceTable({ models: { mine: flat } }).models['deepseek-flash']).toBeDefined()
    const cny = resolvePriceTable({ currency: 'CNY', models: { mine: flat } })
    expect(Object.keys(cny.models)).toEqual(['mine'])
    expect(resolvePriceTable(undefined)).toBe(DEFAULT_PRICE_TABLE)
    expect(
      resolvePriceTable({ currency: 'USD', models: { mine: flat } }).models['deepseek-flash'],
    ).toBeDefined()
    // A flat price holds at peak and off-peak alike.
    const table = resolvePriceTable({ models: { mine: flat } })
    expect(ratesAt(table, 'mine', PEAK)).toEqual(flat)
    expect(ratesAt(table, 'mine', OFF_PEAK)).toEqual(flat)
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
