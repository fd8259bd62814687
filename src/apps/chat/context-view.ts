// `/context`: what fills the model's context window, by category, in tokens and percent of
// the window, and where the total comes from (the server's count or an estimate).

import { BREAKDOWN_LABELS, type ContextUsage, contextPercent, scaledBreakdown } from '../../context/index.js'
import { formatTokens } from '../../usage/index.js'
import type { Colors } from '../shared/render.js'

/** The lines of `/context`; the categories add up to the total exactly. */
export function contextLines(usage: ContextUsage | undefined, colors: Colors): string[] {
  if (!usage) return [colors.yellow('no context management is loaded')]
  const parts = scaledBreakdown(usage)
  const percent = (tokens: number) =>
    usage.window !== undefined && usage.window > 0 ? `${((tokens / usage.window) * 100).toFixed(1)}%` : ''
  const width = Math.max(...BREAKDOWN_LABELS.map(([, label]) => label.length), 'total'.length)
  const row = (label: string, tokens: number) =>
    `  ${label.padEnd(width)}  ${formatTokens(tokens).padStart(9)}  ${percent(tokens).padStart(6)}`.trimEnd()
  const lines = [
    usage.window !== undefined
      ? `context window ${formatTokens(usage.window)} tokens, ${contextPercent(usage)}% used`
      : 'context window unknown (set model.contextWindow in the config)',
  ]
  for (const [key, label] of BREAKDOWN_LABELS) lines.push(row(label, parts[key]))
  lines.push(colors.bold(row('total', usage.tokens)))
  lines.push(
    colors.dim(
      usage.measured
        ? "  total: the server's count of the last request plus an estimate of what came since; the parts are estimates scaled to it"
        : '  total: an estimate (no request of this session has been measured yet in this process)',
    ),
  )
  return lines
}
