// An independent oracle for usage totals: every step priced on its own, in log order, plus
// charges — what `deriveUsage` computed before totals were priced from usage ledgers.

import type { SessionEvent } from '../../src/session/types.js'
import {
  addTotals,
  emptyTotals,
  type PriceTable,
  stepTotals,
  type UsageTotals,
  usageEffect,
} from '../../src/usage/index.js'

export function pricedStepByStep(
  events: readonly SessionEvent[],
  table: PriceTable,
  range: { from?: number; to?: number } = {},
): UsageTotals {
  const totals = emptyTotals()
  let model: string | undefined
  const { from = 0, to = events.length } = range
  for (const [index, event] of events.entries()) {
    const effect = usageEffect(event)
    if (effect?.kind === 'model') model = effect.model
    // Outside the range only the model is followed: a step is priced with the model before it.
    if (index < from || index >= to) continue
    if (effect?.kind === 'step') addTotals(totals, stepTotals(effect.usage, model, effect.time, table))
    if (effect?.kind === 'charge')
      addTotals(totals, { ...emptyTotals(), cost: effect.currency === table.currency ? effect.amount : null })
  }
  return totals
}
