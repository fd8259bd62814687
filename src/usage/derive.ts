// The one derivation of usage and cost from a session log: per step (each assistant
// message's usage, priced at the time it was made, with the model of the request that made
// it), per turn and per session. Paid tool calls log `usage/charge` events; their amounts
// join the same totals.

import type { Usage } from '../llm/types.js'
import type { SessionEvent, SessionEventMap } from '../session/types.js'
import { type PriceTable, type Rates, ratesAt } from './price-table.js'

export interface UsageTotals {
  /** Prompt tokens, cache hits and misses together. */
  inputTokens: number
  cacheHitTokens: number
  cacheMissTokens: number
  /** Completion tokens, reasoning included. */
  outputTokens: number
  reasoningTokens: number
  /** The estimated cost in the table's currency; null when some step's model has no price. */
  cost: number | null
}

export function emptyTotals(): UsageTotals {
  return {
    inputTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cost: 0,
  }
}

/** One step's token counts in the totals' shape (no cost): the cache split as the server gave it. */
export function stepTokens(usage: Usage): Omit<UsageTotals, 'cost'> {
  const cacheHitTokens = usage.cachedTokens ?? 0
  return {
    inputTokens: usage.promptTokens,
    cacheHitTokens,
    cacheMissTokens: usage.cacheMissTokens ?? Math.max(0, usage.promptTokens - cacheHitTokens),
    outputTokens: usage.completionTokens,
    reasoningTokens: usage.reasoningTokens ?? 0,
  }
}

/** The cost of one step's tokens at `rates`; null without rates (no price for its model). */
export function tokensCost(tokens: Omit<UsageTotals, 'cost'>, rates: Rates | undefined): number | null {
  if (!rates) return null
  return (
    (tokens.cacheHitTokens * rates.cacheHit +
      tokens.cacheMissTokens * rates.cacheMiss +
      tokens.outputTokens * rates.output) /
    1_000_000
  )
}

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

/**
 * What one log event means for usage: the turn it opens, the model later steps are priced
 * with, a step's usage, or a paid tool's charge. The one reading of the log that
 * `UsageMeter` (priced) and `UsageLedger` (token counts only) both fold.
 */
export type UsageEffect =
  | { kind: 'turn'; turn: number }
  | { kind: 'model'; model: string }
  | { kind: 'step'; usage: Usage; time: number }
  | { kind: 'charge'; amount: number; currency: string }

export function usageEffect(event: SessionEvent): UsageEffect | undefined {
  switch (event.type) {
    case 'turn/start':
      return { kind: 'turn', turn: (event.data as SessionEventMap['turn/start']).turn }
    case 'request/config': {
      const { model } = event.data as SessionEventMap['request/config']
      return model === undefined ? undefined : { kind: 'model', model }
    }
    case 'assistant/message': {
      const { usage } = event.data as SessionEventMap['assistant/message']
      return usage ? { kind: 'step', usage, time: event.time } : undefined
    }
    case 'usage/charge': {
      const { amount, currency } = event.data as SessionEventMap['usage/charge']
      return { kind: 'charge', amount, currency }
    }
    default:
      return undefined
  }
}

export function addTotals(into: UsageTotals, more: UsageTotals): UsageTotals {
  into.inputTokens += more.inputTokens
  into.cacheHitTokens += more.cacheHitTokens
  into.cacheMissTokens += more.cacheMissTokens
  into.outputTokens += more.outputTokens
  into.reasoningTokens += more.reasoningTokens
  into.cost = into.cost === null || more.cost === null ? null : into.cost + more.cost
  return into
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
  readonly session = emptyTotals()
  readonly turns = new Map<number, UsageTotals>()
  private model: string | undefined
  private turn = 0

  constructor(private readonly table: PriceTable) {}

  get currency(): string {
    return this.table.currency
  }

  add(event: SessionEvent): void {
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
    addTotals(this.session, totals)
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
