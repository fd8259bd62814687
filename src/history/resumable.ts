// Which stored sessions are worth returning to: an empty session (a chat opened and quit
// without a prompt) is never continued, hidden from listings and removed by prune.

import type { SessionId, SessionSummary } from '../session/types.js'

/** A top-level session no prompt was ever sent in (a fork waiting for its first prompt is not empty). */
export function isEmptySession(summary: SessionSummary): boolean {
  return (
    summary.turns === 0 && summary.header.parentSession === undefined && summary.header.origin !== 'subagent'
  )
}

/**
 * The session `--continue` picks in `cwd`: the most recently active top-level session
 * with at least one turn (completed, interrupted or otherwise ended; an open one is
 * closed as interrupted on resume). `summaries` in any order.
 */
export function latestResumable(summaries: readonly SessionSummary[], cwd: string): SessionId | undefined {
  let best: SessionSummary | undefined
  for (const summary of summaries) {
    if (summary.header.cwd !== cwd || summary.header.origin === 'subagent' || !hasTurn(summary)) continue
    if (!best || summary.lastActivity > best.lastActivity) best = summary
  }
  return best?.header.id
}

/** Whether a turn was ever started (its outcome is known once one is, `open` until it ends). */
function hasTurn(summary: SessionSummary): boolean {
  return summary.turns > 0 || summary.outcome !== undefined
}
