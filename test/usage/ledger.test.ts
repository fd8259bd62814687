// The usage ledger a backend keeps beside a session: priced under any table whose peak
// boundaries fall on quarter hours, it gives the totals of pricing each step on its own;
// folding in pieces equals folding at once; a table it cannot price says so.

import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/index.js'
import {
  copyLedger,
  DEFAULT_PRICE_TABLE,
  deriveUsage,
  emptyLedger,
  emptyTotals,
  foldUsage,
  ledgerOf,
  type PriceTable,
  parseLedger,
  priceLedger,
  resolvePriceTable,
  type UsageTotals,
} from '../../src/usage/index.js'
import { pricedStepByStep } from '../support/priced-step-by-step.js'
import { fc } from '../support/property.js'

const DEC_2 = Date.UTC(2026, 11, 2)
const MODELS = ['deepseek-flash', 'deepseek-v4-pro', 'unpriced-model']

/** A random log of model switches, steps at any time of two weeks, and charges. */
const logs = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('model' as const), model: fc.constantFrom(...MODELS) }),
      fc.record({
        kind: fc.constant('step' as const),
        at: fc.integer({ min: 0, max: 14 * 24 * 60 * 60_000 }),
        prompt: fc.integer({ min: 0, max: 200_000 }),
        hit: fc.integer({ min: 0, max: 200_000 }),
        miss: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
        completion: fc.integer({ min: 0, max: 20_000 }),
        reasoning: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined }),
      }),
      fc.record({
        kind: fc.constant('charge' as const),
        amount: fc.integer({ min: 0, max: 1000 }).map((cents) => cents / 1000),
        currency: fc.constantFrom('USD', 'CNY'),
      }),
    ),
    { maxLength: 30 },
  )
  .map((items) =>
    items.map((item, seq): SessionEvent => {
      if (item.kind === 'model')
        return {
          seq,
          type: 'request/config',
          time: DEC_2,
          data: { model: item.model, system: '', tools: [] },
        }
      if (item.kind === 'charge')
        return { seq, type: 'usage/charge', time: DEC_2, data: { source: 'web', ...item } }
      const usage = {
        promptTokens: item.prompt,
        completionTokens: item.completion,
        totalTokens: item.prompt + item.completion,
        cachedTokens: item.hit,
        ...(item.miss !== undefined ? { cacheMissTokens: item.miss } : {}),
        ...(item.reasoning !== undefined ? { reasoningTokens: item.reasoning } : {}),
      }
      return {
        seq,
        type: 'assistant/message',
        time: DEC_2 + item.at,
        data: { message: { content: '' }, usage },
      }
    }),
  )

/** Tables with peak hours on quarter hours in any quarter-hour time zone. */
const tables = fc
  .record({
    utcOffsetMinutes: fc.integer({ min: -48, max: 56 }).map((quarters) => quarters * 15),
    weekdays: fc.uniqueArray(fc.integer({ min: 0, max: 6 })),
    ranges: fc.array(
      fc.tuple(fc.integer({ min: 0, max: 96 }), fc.integer({ min: 0, max: 96 })).map(([a, b]) => {
        const [start, end] = a <= b ? [a, b] : [b, a]
        return [start / 4, end / 4] as [number, number]
      }),
      { maxLength: 3 },
    ),
  })
  .map((peakHours): PriceTable => ({ ...DEFAULT_PRICE_TABLE, peakHours }))

function expectSameTotals(priced: UsageTotals | undefined, derived: UsageTotals): void {
  expect(priced).toBeDefined()
  const { cost, ...tokens } = priced!
  const { cost: derivedCost, ...derivedTokens } = derived
  expect(tokens).toEqual(derivedTokens)
  if (derivedCost === null) expect(cost).toBeNull()
  else expect(cost).toBeCloseTo(derivedCost, 12)
}

describe('usage ledger', () => {
  it('priced, gives the totals of pricing every step on its own, for any log and quarter-hour table', () => {
    fc.assert(
      fc.property(logs, tables, (events, table) => {
        const priced = priceLedger(ledgerOf(events), table)
        expectSameTotals(priced, pricedStepByStep(events, table))
        // deriveUsage prices the session, and (no turn/start here) turn 0, from the same ledger.
        const derived = deriveUsage(events, table)
        expect(derived.session).toEqual(priced)
        if (derived.turns.size > 0) expect(derived.turns.get(0)).toEqual(priced)
      }),
      { numRuns: 500 },
    )
  })

  it('a session total under a table it cannot price is the sum of its steps', () => {
    const table: PriceTable = {
      ...DEFAULT_PRICE_TABLE,
      peakHours: { utcOffsetMinutes: 7, weekdays: [0, 1, 2, 3, 4, 5, 6], ranges: [[0, 12]] },
    }
    fc.assert(
      fc.property(logs, (events) => {
        const derived = deriveUsage(events, table)
        expect(derived.session).toEqual(pricedStepByStep(events, table))
        expect(derived.turns.get(0) ?? emptyTotals()).toEqual(pricedStepByStep(events, table))
      }),
    )
  })

  it('folded in pieces equals folded at once, and survives JSON storage', () => {
    fc.assert(
      fc.property(logs, fc.integer({ min: 0, max: 30 }), (events, cut) => {
        const first = ledgerOf(events.slice(0, cut))
        const copy = copyLedger(first)
        const whole = foldUsage(first, events.slice(cut))
        expect(whole).toEqual(ledgerOf(events))
        expect(copy).toEqual(ledgerOf(events.slice(0, cut))) // the copy did not move with it
        expect(parseLedger(JSON.parse(JSON.stringify(whole)))).toEqual(whole)
      }),
    )
  })

  it("a fork's marker moves what was counted before it to inherited, also a fork of a fork", () => {
    const withForks = fc
      .tuple(logs, fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 2 }))
      .map(([events, cuts]) => {
        const out = [...events]
        for (const cut of [...cuts].sort((a, b) => b - a))
          out.splice(Math.min(cut, out.length), 0, {
            seq: 0,
            type: 'session/forked',
            time: DEC_2,
            data: { parentSession: 'parent' },
            ignorable: true,
          })
        return out.map((event, seq) => ({ ...event, seq }))
      })
    const tokens = ({ cost: _cost, ...rest }: UsageTotals) => rest
    fc.assert(
      fc.property(withForks, fc.integer({ min: 0, max: 32 }), (events, cut) => {
        const ledger = ledgerOf(events)
        const last = events.map((event) => event.type).lastIndexOf('session/forked')
        const own = priceLedger(ledger, DEFAULT_PRICE_TABLE)!
        expect(tokens(own)).toEqual(tokens(pricedStepByStep(events, DEFAULT_PRICE_TABLE, { from: last + 1 })))
        if (last < 0) expect(ledger.inherited).toBeUndefined()
        else {
          const inherited = priceLedger(ledger.inherited!, DEFAULT_PRICE_TABLE)!
          expect(tokens(inherited)).toEqual(
            tokens(pricedStepByStep(events, DEFAULT_PRICE_TABLE, { to: last })),
          )
        }
        expect(tokens(deriveUsage(events, DEFAULT_PRICE_TABLE).session)).toEqual(tokens(own))
        expect(foldUsage(ledgerOf(events.slice(0, cut)), events.slice(cut))).toEqual(ledger)
        expect(parseLedger(JSON.parse(JSON.stringify(ledger)))).toEqual(ledger)
      }),
    )
  })

  it('prices peak and off-peak steps of one model apart, and unknown models and foreign charges as unknown', () => {
    // Wednesday 2026-12-02: Beijing 10:00 = 02:00 UTC (peak), Beijing 13:00 = 05:00 UTC (off-peak).
    const step = (time: number) => ({
      seq: 0,
      type: 'assistant/message',
      time,
      data: {
        message: { content: '' },
        usage: { promptTokens: 1_000_000, completionTokens: 0, totalTokens: 0 },
      },
    })
    const model = {
      seq: 0,
      type: 'request/config',
      time: DEC_2,
      data: { model: 'deepseek-flash', system: '', tools: [] },
    }
    const ledger = ledgerOf([model, step(Date.UTC(2026, 11, 2, 2)), step(Date.UTC(2026, 11, 2, 5))])
    expect(ledger.steps).toHaveLength(2)
    expect(priceLedger(ledger, DEFAULT_PRICE_TABLE)?.cost).toBeCloseTo(0.3 + 0.15, 12)
    const unpriced = ledgerOf([step(DEC_2)])
    expect(priceLedger(unpriced, DEFAULT_PRICE_TABLE)).toMatchObject({ inputTokens: 1_000_000, cost: null })
    const charged = foldUsage(emptyLedger(), [
      { seq: 0, type: 'usage/charge', time: DEC_2, data: { source: 'web', amount: 1, currency: 'CNY' } },
    ])
    expect(priceLedger(charged, DEFAULT_PRICE_TABLE)?.cost).toBeNull()
    expect(priceLedger(charged, resolvePriceTable({ currency: 'CNY' }))?.cost).toBe(1)
  })

  it('cannot price under peak hours that split a quarter hour: the caller derives from the log', () => {
    const table = (utcOffsetMinutes: number, ranges: [number, number][]): PriceTable => ({
      ...DEFAULT_PRICE_TABLE,
      peakHours: { utcOffsetMinutes, weekdays: [1, 2, 3, 4, 5], ranges },
    })
    expect(priceLedger(emptyLedger(), table(480, [[9, 12.5]]))).toBeDefined()
    expect(priceLedger(emptyLedger(), table(345, [[9, 12]]))).toBeDefined() // UTC+5:45
    expect(priceLedger(emptyLedger(), table(480, [[9, 9.1]]))).toBeUndefined()
    expect(priceLedger(emptyLedger(), table(10, [[9, 12]]))).toBeUndefined()
  })

  it('refuses a stored value that is not a ledger', () => {
    expect(parseLedger(undefined)).toBeUndefined()
    expect(parseLedger({ steps: [['m', 9999, 1, 1, 1, 1, 1]], charges: [] })).toBeUndefined()
    expect(parseLedger({ steps: [], charges: [], extra: 1 })).toBeUndefined()
    expect(parseLedger({ steps: [[null, 3, 1, 0, 1, 2, 0]], charges: [['USD', 0.5]] })).toEqual({
      steps: [[null, 3, 1, 0, 1, 2, 0]],
      charges: [['USD', 0.5]],
    })
  })
})
