// How a compaction boundary and the window's fill read for people: one wording for every
// front end. Pure (no Node APIs), so the web UI's browser bundle imports it as it is.

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
