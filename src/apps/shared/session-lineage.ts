// Sub-agent lineage of stored sessions: a sub-agent session (`origin: 'subagent'`)
// belongs to the session named by its `parentSession`, for listing and for removal.
// Forks also name a parent but stand on their own.

import type { SessionId, SessionSummary } from '../../session/types.js'

export interface SessionLineage {
  /** Sub-agent sessions of each stored session, oldest first. */
  children(id: SessionId): SessionSummary[]
  /** Every sub-agent session below `id`, depth first (children before grandchildren of the next child). */
  descendants(id: SessionId): { summary: SessionSummary; depth: number }[]
  /** Whether `summary` is a sub-agent session whose parent is stored (so it folds under it). */
  isFolded(summary: SessionSummary): boolean
}

export function sessionLineage(summaries: readonly SessionSummary[]): SessionLineage {
  const stored = new Set(summaries.map((summary) => summary.header.id))
  const byParent = new Map<SessionId, SessionSummary[]>()
  for (const summary of summaries) {
    const { origin, parentSession } = summary.header
    if (origin !== 'subagent' || parentSession === undefined) continue
    const siblings = byParent.get(parentSession) ?? []
    siblings.push(summary)
    byParent.set(parentSession, siblings)
  }
  for (const siblings of byParent.values()) siblings.sort((a, b) => a.header.createdAt - b.header.createdAt)

  const children = (id: SessionId) => byParent.get(id) ?? []
  const descendants = (id: SessionId) => {
    const found: { summary: SessionSummary; depth: number }[] = []
    const seen = new Set<SessionId>([id])
    const walk = (parent: SessionId, depth: number) => {
      for (const child of children(parent)) {
        if (seen.has(child.header.id)) continue // a cycle in damaged headers must not loop
        seen.add(child.header.id)
        found.push({ summary: child, depth })
        walk(child.header.id, depth + 1)
      }
    }
    walk(id, 1)
    return found
  }
  const isFolded = (summary: SessionSummary) =>
    summary.header.origin === 'subagent' &&
    summary.header.parentSession !== undefined &&
    stored.has(summary.header.parentSession)
  return { children, descendants, isFolded }
}
