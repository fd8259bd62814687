// The usage ledger: a session's token counts folded from its log without a price table
// (per model and quarter hour of the week, plus tool charges per currency), so a backend
// can keep it beside the session and a listing prices it without reading the whole log.

import type { SessionEvent } from '../session/types.js'
import type { LedgerStep, UsageLedger } from './ledger-types.js'
import { type PriceTable, ratesAt } from './price-table.js'
import { addTotals, emptyTotals, stepTokens, tokensCost, type UsageTotals, usageEffect } from './totals.js'

export type { LedgerStep, UsageLedger } from './ledger-types.js'

const SLOT_MS = 15 * 60_000
const WEEK_MS = 7 * 24 * 60 * 60_000
/** Quarter hours in a week: slots are 0 to LEDGER_SLOTS - 1. */
export const LEDGER_SLOTS = WEEK_MS / SLOT_MS

export function emptyLedger(): UsageLedger {
  return { steps: [], charges: [] }
}

/** A deep copy: a writer folds into a copy and keeps it only once the write succeeded. */
export function copyLedger(ledger: UsageLedger): UsageLedger {
  const copy: UsageLedger = {
    steps: ledger.steps.map((step) => [...step] as LedgerStep),
    charges: ledger.charges.map(([currency, amount]) => [currency, amount]),
  }
  if (ledger.model !== undefined) copy.model = ledger.model
  if (ledger.inherited) {
    copy.inherited = {
      steps: ledger.inherited.steps.map((step) => [...step] as LedgerStep),
      charges: ledger.inherited.charges.map(([currency, amount]) => [currency, amount]),
    }
  }
  return copy
}

/** Folds `events` into `ledger` (mutating it), reading each as `UsageMeter` does; returns it. */
export function foldUsage(ledger: UsageLedger, events: readonly SessionEvent[]): UsageLedger {
  for (const event of events) {
    const effect = usageEffect(event)
    if (effect?.kind === 'model') ledger.model = effect.model
    else if (effect?.kind === 'fork') inherit(ledger)
    else if (effect?.kind === 'step') {
      const model = ledger.model ?? null
      const slot = Math.floor((effect.time % WEEK_MS) / SLOT_MS)
      const tokens = stepTokens(effect.usage)
      let step = ledger.steps.find(([m, s]) => m === model && s === slot)
      if (!step) {
        step = [model, slot, 0, 0, 0, 0, 0]
        ledger.steps.push(step)
      }
      step[2] += tokens.inputTokens
      step[3] += tokens.cacheHitTokens
      step[4] += tokens.cacheMissTokens
      step[5] += tokens.outputTokens
      step[6] += tokens.reasoningTokens
    } else if (effect?.kind === 'charge') {
      const charge = ledger.charges.find(([currency]) => currency === effect.currency)
      if (charge) charge[1] += effect.amount
      else ledger.charges.push([effect.currency, effect.amount])
    }
  }
  return ledger
}

/**
 * At a fork's marker: everything counted so far came with the parent's turns, so it moves to
 * `inherited` (added to what an earlier fork marker moved there) and the fork's own starts at 0.
 */
function inherit(ledger: UsageLedger): void {
  const inherited = ledger.inherited ?? { steps: [], charges: [] }
  for (const step of ledger.steps) {
    const same = inherited.steps.find(([m, s]) => m === step[0] && s === step[1])
    if (!same) inherited.steps.push([...step] as LedgerStep)
    else for (let i = 2; i < step.length; i++) (same[i] as number) += step[i] as number
  }
  for (const [currency, amount] of ledger.charges) {
    const same = inherited.charges.find(([c]) => c === currency)
    if (same) same[1] += amount
    else inherited.charges.push([currency, amount])
  }
  ledger.inherited = inherited
  ledger.steps = []
  ledger.charges = []
}

/** The ledger of a whole log. */
export function ledgerOf(events: readonly SessionEvent[]): UsageLedger {
  return foldUsage(emptyLedger(), events)
}

/**
 * Whether `table` gives one rate to a whole quarter hour: its clock offset is a multiple
 * of 15 minutes (every time zone's is) and each peak range starts and ends on a quarter
 * hour. Otherwise a ledger cannot be priced and the caller derives from the log.
 */
export function pricesLedgerExactly(table: PriceTable): boolean {
  const { utcOffsetMinutes, ranges } = table.peakHours
  return (
    Number.isInteger(utcOffsetMinutes / 15) &&
    ranges.every(([start, end]) => Number.isInteger(start * 4) && Number.isInteger(end * 4))
  )
}

/**
 * The session totals of a ledger under `table`, as `deriveUsage(events, table).session`
 * gives them for the log it was folded from (costs may differ in the last binary digits:
 * they are summed per slot, not per step). Undefined when `pricesLedgerExactly` is false.
 */
export function priceLedger(
  ledger: Pick<UsageLedger, 'steps' | 'charges'>,
  table: PriceTable,
): UsageTotals | undefined {
  if (!pricesLedgerExactly(table)) return undefined
  const totals = emptyTotals()
  for (const [
    model,
    slot,
    inputTokens,
    cacheHitTokens,
    cacheMissTokens,
    outputTokens,
    reasoningTokens,
  ] of ledger.steps) {
    const tokens = { inputTokens, cacheHitTokens, cacheMissTokens, outputTokens, reasoningTokens }
    // Any instant of the slot has its rate; the slot's first minute in the epoch's first week.
    const rates = model === null ? undefined : ratesAt(table, model, slot * SLOT_MS)
    addTotals(totals, { ...tokens, cost: tokensCost(tokens, rates) })
  }
  for (const [currency, amount] of ledger.charges) {
    const charge = emptyTotals()
    charge.cost = currency === table.currency ? amount : null
    addTotals(totals, charge)
  }
  return totals
}
