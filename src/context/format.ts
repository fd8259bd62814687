// How a compaction boundary, the window's fill and what fills it (`/context`) read for
// people: one wording for every front end. Pure (no Node APIs), so the web UI's browser
// bundle imports it as it is.

import type { ContextBreakdown, ContextUsage } from '../plugin-api/index.js'
import { formatTokensShort } from '../usage/format.js'

/** `context compacted: 812k → 41k tokens` */
export function formatCompactionLine(data: { tokensBefore: number; tokensAfter: number }): string {
  return `context compacted: ${formatTokensShort(data.tokensBefore)} → ${formatTokensShort(data.tokensAfter)} tokens`
}

/** The share of the window used, as a whole percent; undefined when the window is unknown. */
export function contextPercent(usage: { tokens: number; window?: number | null }): number | undefined {
  if (usage.window === undefined || usage.window === null || usage.window <= 0) return undefined
  return Math.round((usage.tokens / usage.window) * 100)
}

/** `context 41% (53k of 128k tokens)`; `context 53k tokens` when the window is unknown. */
export function formatContextUsage(usage: { tokens: number; window?: number | null }): string {
  const percent = contextPercent(usage)
  if (percent === undefined) return `context ${formatTokensShort(usage.tokens)} tokens`
  return `context ${percent}% (${formatTokensShort(usage.tokens)} of ${formatTokensShort(usage.window!)} tokens)`
}

/** The categories of `/context`, in the order shown, with their labels. */
export const BREAKDOWN_LABELS: readonly [keyof ContextBreakdown, string][] = [
  ['system', 'system prompt'],
  ['tools', 'tool definitions'],
  ['instructions', 'instructions files'],
  ['messages', 'messages'],
  ['toolOutputs', 'tool outputs'],
  ['reasoning', 'reasoning'],
]

/**
 * The breakdown scaled so its parts add up to `usage.tokens` exactly (largest remainders get
 * the rounding): the parts are estimates, the total may be the server's own count.
 */
export function scaledBreakdown(usage: ContextUsage): ContextBreakdown {
  const keys = BREAKDOWN_LABELS.map(([key]) => key)
  const estimate = keys.reduce((sum, key) => sum + usage.breakdown[key], 0)
  const scaled = { ...usage.breakdown }
  if (estimate === 0) return scaled
  const factor = usage.tokens / estimate
  const exact = keys.map((key) => usage.breakdown[key] * factor)
  let left = usage.tokens
  keys.forEach((key, index) => {
    scaled[key] = Math.floor(exact[index]!)
    left -= scaled[key]
  })
  const byRemainder = keys
    .map((key, index) => ({ key, remainder: exact[index]! - Math.floor(exact[index]!) }))
    .sort((a, b) => b.remainder - a.remainder)
  for (let i = 0; left > 0 && i < byRemainder.length; i++, left--) scaled[byRemainder[i]!.key] += 1
  return scaled
}
