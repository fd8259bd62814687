// The one derivation of usage and cost from a session log: per step (each assistant
// message's usage, priced at the time it was made, with the model of the request that made
// it), per turn and per session. Paid tool calls log `usage/charge` events; their amounts
// join the same totals.

import type { Usage } from '../llm/types.js'
import type { SessionEvent } from '../session/types.js'
import { emptyLedger, foldUsage, priceLedger, type UsageLedger } from './ledger.js'
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
  /** What this session's own requests used: a fork's copied turns are not in it. */
  session: UsageTotals
  turns: Map<number, UsageTotals>
  /** A fork's: what its copied turns used, in its parent. */
  inherited?: UsageTotals
}

/**
 * Folds a log into usage totals one event at a time: the derivation itself, so a view that
 * receives events live (the web session page) and `deriveUsage` agree by construction.
 */
export class UsageMeter {
  /** The session's events as a usage ledger, and each turn's: every total is priced from one. */
  private readonly ledger = emptyLedger()
  private readonly turnLedgers = new Map<number, UsageLedger>()
  /** Steps and charges summed in log order, for a table that cannot price a ledger. */
  private summed = emptyTotals()
  /** At a fork's marker, what was summed so far: the parent's usage. */
  private summedInherited: UsageTotals | undefined
  private readonly summedTurns = new Map<number, UsageTotals>()
  private turn = 0

  constructor(private readonly table: PriceTable) {}

  get currency(): string {
    return this.table.currency
  }

  /**
   * The session's totals so far. Priced from its ledger, as listings price the ledger a
   * backend keeps, so `sessions list` and the rest agree to the last digit of the cost (and
   * a one-turn session's total is its turn's, exactly).
   */
  get session(): UsageTotals {
    return priceLedger(this.ledger, this.table) ?? addTotals(emptyTotals(), this.summed)
  }

  /** A fork's: the usage that came with its parent's turns (not in `session`); undefined for others. */
  get inherited(): UsageTotals | undefined {
    const { inherited } = this.ledger
    if (inherited === undefined) return undefined
    return (
      priceLedger(inherited, this.table) ?? addTotals(emptyTotals(), this.summedInherited ?? emptyTotals())
    )
  }

  /** Each turn's totals so far, by turn number; turns that used nothing are absent. */
  get turns(): Map<number, UsageTotals> {
    const turns = new Map<number, UsageTotals>()
    for (const [turn, ledger] of this.turnLedgers) {
      turns.set(
        turn,
        priceLedger(ledger, this.table) ?? addTotals(emptyTotals(), this.summedTurns.get(turn)!),
      )
    }
    return turns
  }

  add(event: SessionEvent): void {
    foldUsage(this.ledger, [event])
    const effect = usageEffect(event)
    switch (effect?.kind) {
      case 'turn':
        this.turn = effect.turn
        break
      case 'fork':
        this.summedInherited = addTotals(this.summedInherited ?? emptyTotals(), this.summed)
        this.summed = emptyTotals()
        break
      case 'step':
        this.count(event, stepTotals(effect.usage, this.ledger.model, effect.time, this.table))
        break
      case 'charge': {
        const totals = emptyTotals()
        // A charge in another currency cannot be added: the total is unknown.
        totals.cost = effect.currency === this.table.currency ? effect.amount : null
        this.count(event, totals)
        break
      }
      default:
        break
    }
  }

  /** A copy of one turn's totals so far (all zeros when it used nothing). */
  turnTotals(turn: number): UsageTotals {
    const ledger = this.turnLedgers.get(turn)
    if (!ledger) return emptyTotals()
    return priceLedger(ledger, this.table) ?? addTotals(emptyTotals(), this.summedTurns.get(turn)!)
  }

  private count(event: SessionEvent, totals: UsageTotals): void {
    addTotals(this.summed, totals)
    let ledger = this.turnLedgers.get(this.turn)
    if (!ledger) {
      ledger = emptyLedger()
      this.turnLedgers.set(this.turn, ledger)
      this.summedTurns.set(this.turn, emptyTotals())
    }
    addTotals(this.summedTurns.get(this.turn)!, totals)
    // The turn's steps are priced with the session's model at the time.
    if (this.ledger.model === undefined) delete ledger.model
    else ledger.model = this.ledger.model
    foldUsage(ledger, [event])
  }
}

/** Derives per-turn and session totals from `events` in one pass. */
export function deriveUsage(events: readonly SessionEvent[], table: PriceTable): SessionUsage {
  const meter = new UsageMeter(table)
  for (const event of events) meter.add(event)
  const { inherited } = meter
  return { session: meter.session, turns: meter.turns, ...(inherited ? { inherited } : {}) }
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
