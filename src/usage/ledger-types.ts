// The usage ledger's shape, types only: the session types name it, so it imports nothing.

/** Token counts of one model's steps in one quarter hour of the week. */
export type LedgerStep = [
  model: string | null,
  slot: number,
  inputTokens: number,
  cacheHitTokens: number,
  cacheMissTokens: number,
  outputTokens: number,
  reasoningTokens: number,
]

/**
 * Plain JSON, stored as it is. Steps are keyed by quarter hour of the week because a
 * price depends on the model and on whether its time was peak, and peak hours are a
 * weekly pattern: every step of one slot has the same rate under any table whose peak
 * boundaries fall on quarter hours (see `pricesLedgerExactly`).
 */
export interface UsageLedger {
  /** The model later steps are priced with: the fold's state, so appends can continue it. */
  model?: string
  steps: LedgerStep[]
  /** Paid tool charges summed per currency. */
  charges: [currency: string, amount: number][]
  /**
   * A fork's usage copied with its parent's turns (up to its `session/forked` marker): shown
   * apart, never added to the fork's own, so summing a listing counts each request once.
   */
  inherited?: { steps: LedgerStep[]; charges: [currency: string, amount: number][] }
}
