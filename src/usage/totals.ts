// The pieces every usage computation shares: the totals' shape, one step's tokens and
// their cost at given rates, and what one log event means for usage.

import type { Usage } from '../llm/types.js'
import type { SessionEvent, SessionEventMap } from '../session/types.js'
import type { Rates } from './price-table.js'

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

export function addTotals(into: UsageTotals, more: UsageTotals): UsageTotals {
  into.inputTokens += more.inputTokens
  into.cacheHitTokens += more.cacheHitTokens
  into.cacheMissTokens += more.cacheMissTokens
  into.outputTokens += more.outputTokens
  into.reasoningTokens += more.reasoningTokens
  into.cost = into.cost === null || more.cost === null ? null : into.cost + more.cost
  return into
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
  /** A fork's seed ends here: what was counted so far is the parent's. */
  | { kind: 'fork' }

/** The event types `usageEffect` reads: a store catching a ledger up fetches only these. */
export const USAGE_EVENT_TYPES = [
  'request/config',
  'assistant/message',
  'context/compacted',
  'session/title',
  'session/forked',
  'usage/charge',
] as const

/** USAGE_EVENT_TYPES as an SQL list of string literals: `('request/config', …)`. */
export const USAGE_EVENT_TYPES_SQL = `(${USAGE_EVENT_TYPES.map((type) => `'${type}'`).join(', ')})`

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
    case 'context/compacted': {
      // The summary call is a model request like any step, and is priced so.
      const { usage } = event.data as SessionEventMap['context/compacted']
      return usage ? { kind: 'step', usage, time: event.time } : undefined
    }
    case 'session/title': {
      // A title the model wrote is a model request too (src/history/model-title.ts).
      const { usage } = event.data as SessionEventMap['session/title']
      return usage ? { kind: 'step', usage, time: event.time } : undefined
    }
    case 'session/forked':
      return { kind: 'fork' }
    case 'usage/charge': {
      const { amount, currency } = event.data as SessionEventMap['usage/charge']
      return { kind: 'charge', amount, currency }
    }
    default:
      return undefined
  }
}
