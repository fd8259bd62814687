// How usage reads on a terminal: one line for a turn or a session, and a short cell for
// tables. Front ends only display; the numbers come from derive.ts.

import type { UsageTotals } from './derive.js'

/** `1,234` (thousands grouped like `toLocaleString('en-US')`, without loading ICU's number formats: ~40 ms on a cold `dsh run`) */
export function formatTokens(tokens: number): string {
  if (!Number.isSafeInteger(tokens)) return tokens.toLocaleString('en-US')
  return String(tokens).replace(/\B(?=(\d{3})+$)/g, ',')
}

/** `12.3k`, `1.2M` */
export function formatTokensShort(tokens: number): string {
  if (tokens < 1000) return String(tokens)
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`
  return `${(tokens / 1_000_000).toFixed(1)}M`
}

/** `$0.0123` for USD, `0.0123 CNY` otherwise; `cost unknown` without a price. */
export function formatCost(cost: number | null, currency: string): string {
  if (cost === null) return 'cost unknown'
  const digits = cost >= 1 ? 2 : cost >= 0.01 ? 4 : 5
  const amount = cost === 0 ? '0' : cost.toFixed(digits)
  return currency === 'USD' ? `~$${amount}` : `~${amount} ${currency}`
}

/** The share of input tokens served from the prompt cache, as `87%`. */
export function cacheHitPercent(totals: UsageTotals): string {
  if (totals.inputTokens === 0) return '0%'
  return `${Math.round((totals.cacheHitTokens / totals.inputTokens) * 100)}%`
}

/**
 * `12,345 in (87% cache hit) · 1,234 out (800 reasoning) · ~$0.0031` — the usage line
 * after a turn, with an optional label in front.
 */
export function formatUsageLine(totals: UsageTotals, currency: string, label = ''): string {
  const reasoning = totals.reasoningTokens > 0 ? ` (${formatTokens(totals.reasoningTokens)} reasoning)` : ''
  const line = [
    `${formatTokens(totals.inputTokens)} in (${cacheHitPercent(totals)} cache hit)`,
    `${formatTokens(totals.outputTokens)} out${reasoning}`,
    formatCost(totals.cost, currency),
  ].join(' · ')
  return label ? `${label} ${line}` : line
}

/** A table cell: `13k tok ~$0.012`. */
export function formatUsageCell(totals: UsageTotals, currency: string): string {
  const tokens = totals.inputTokens + totals.outputTokens
  if (tokens === 0 && (totals.cost ?? 0) === 0) return '-'
  return `${formatTokensShort(tokens)} tok ${formatCost(totals.cost, currency)}`
}
