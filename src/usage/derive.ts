// The one derivation of usage and cost from a session log: per step (each assistant
// message's usage, priced at the time it was made, with the model of the request that made
// it), per turn and per session. Paid tool calls log `usage/charge` events; their amounts
// join the same totals.

import type { Usage } from '../llm/types.js'
import type { SessionEvent } from '../session/types.js'
import { emptyLedger, foldUsage, priceLedger } from './ledger.js'
import { type PriceTable, ratesAt } from './price-table.js'
import { addTotals, emptyTotals, stepTokens, tokensCost, type UsageTotals, usageEffect } from './totals.js'

export type { UsageTotals } from './totals.js'

/** One step's usage in the totals' shape, priced with `table`. */
export function stepTotals(
  usage: Usage,
  model: string | undefined,
  time: number,
  table: PriceTable,
): UsageTotals {
  const tokens = stepTokens(usage)
  const rates = model === undefined ? undefined : ratesAt(table, model, time)
  return { ...tokens, cost: tokensCost(tokens, rates) }
}

/** Usage of the whole log, and of each turn by number. */
export interface SessionUsage {
  session: UsageTotals
  turns: Map<number, UsageTotals>
}

/**
 * Folds a log into usage totals one event at a time: the derivation itself, so a view that
 * receives events live (the web session page) and `deriveUsage` agree by construction.
 */
export class UsageMeter {
  readonly turns = new Map<number, UsageTotals>()
  /** The same events as a usage ledger: the session total is priced from it (see `session`). */
  private readonly ledger = emptyLedger()
  /** Steps and charges summed in log order, for a table that cannot price a ledger. */
  private readonly summed = emptyTotals()
  private model: string | undefined
  private turn = 0

  constructor(private readonly table: PriceTable) {}

  get currency(): string {
    return this.table.currency
  }

  /**
   * The session's totals so far. Priced from the ledger, as listings price the ledger a
   * backend keeps, so `sessions list` and the rest agree to the last digit of the cost.
   */
  get session(): UsageTotals {
    return priceLedger(this.ledger, this.table) ?? addTotals(emptyTotals(), this.summed)
  }

  add(event: SessionEvent): void {
    foldUsage(this.ledger, [event])
    const effect = usageEffect(event)
    switch (effect?.kind) {
      case 'turn':
        this.turn = effect.turn
        break
      case 'model':
        this.model = effect.model
        break
      case 'step':
        this.count(stepTotals(effect.usage, this.model, effect.time, this.table))
        break
      case 'charge': {
        const totals = emptyTotals()
        // A charge in another currency cannot be added: the total is unknown.
        totals.cost = effect.currency === this.table.currency ? effect.amount : null
        this.count(totals)
        break
      }
      default:
        break
    }
  }

  /** A copy of one turn's totals so far (all zeros when it used nothing). */
  turnTotals(turn: number): UsageTotals {
    return addTotals(emptyTotals(), this.turns.get(turn) ?? emptyTotals())
  }

  private count(totals: UsageTotals): void {
    addTotals(this.summed, totals)
    let current = this.turns.get(this.turn)
    if (!current) {
      current = emptyTotals()
      this.turns.set(this.turn, current)
    }
    addTotals(current, totals)
  }
}

/** Derives per-turn and session totals from `events` in one pass. */
export function deriveUsage(events: readonly SessionEvent[], table: PriceTable): SessionUsage {
  const meter = new UsageMeter(table)
  for (const event of events) meter.add(event)
  return { session: meter.session, turns: meter.turns }
}

/** Totals of one turn (all zeros when it used nothing). */
export function turnUsage(events: readonly SessionEvent[], turn: number, table: PriceTable): UsageTotals {
  return deriveUsage(events, table).turns.get(turn) ?? emptyTotals()
}

/** What front ends report after a turn: the turn's totals, the session's, and their currency. */
export interface UsageReport {
  usage: UsageTotals
  sessionUsage: UsageTotals
  currency: string
}

export function usageReport(events: readonly SessionEvent[], turn: number, table: PriceTable): UsageReport {
  const derived = deriveUsage(events, table)
  return {
    usage: derived.turns.get(turn) ?? emptyTotals(),
    sessionUsage: derived.session,
    currency: table.currency,
  }
}
