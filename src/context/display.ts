// How front ends show context facts: the one boundary line ("context compacted: 812k → 41k
// tokens"), the share of the window in use, and a breakdown whose parts add up to its total.

import { formatTokensShort } from '../usage/format.js'
import type { ContextBreakdown, ContextUsage } from './types.js'

/** `context compacted: 812k → 41k tokens` — a compaction boundary, everywhere it is shown. */
export function compactionLine(tokens: { tokensBefore: number; tokensAfter: number }): string {
  return `context compacted: ${formatTokensShort(tokens.tokensBefore)} → ${formatTokensShort(tokens.tokensAfter)} tokens`
}

/** The share of the window in use, as a whole percent; undefined when the window is unknown. */
export function windowPercent(usage: Pick<ContextUsage, 'tokens' | 'window'>): number | undefined {
  if (usage.window === undefined || usage.window <= 0) return undefined
  return Math.round((usage.tokens / usage.window) * 100)
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
