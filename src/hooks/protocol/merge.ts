// Merging the outcomes of several hooks for one event: deny (or block) > ask > allow,
// the reasons of the winning rank, every context in configuration order, and the
// `updatedInput` of the last hook in configuration order that gave one.

import type { HookDecision, HookOutcome, MergedDecision, MergedOutcome } from './types.js'

const RANK: Record<HookDecision, number> = { deny: 3, block: 3, ask: 2, allow: 1, none: 0, error: 0 }
const MERGED: readonly MergedDecision[] = ['none', 'allow', 'ask', 'deny']

export function mergeOutcomes(outcomes: readonly HookOutcome[]): MergedOutcome {
  const top = Math.max(0, ...outcomes.map((outcome) => RANK[outcome.decision]))
  const merged: MergedOutcome = {
    decision: MERGED[top]!,
    context: outcomes.flatMap((outcome) => outcome.context),
    systemMessages: outcomes.flatMap((outcome) =>
      outcome.systemMessage !== undefined ? [outcome.systemMessage] : [],
    ),
    updatedInputCount: 0,
  }
  for (const outcome of outcomes) {
    if (outcome.updatedInput === undefined) continue
    merged.updatedInput = outcome.updatedInput
    merged.updatedInputCount += 1
  }
  if (top > 0) {
    const reasons = outcomes
      .filter((outcome) => RANK[outcome.decision] === top && outcome.reason)
      .map((outcome) => outcome.reason!)
    if (reasons.length > 0) merged.reason = reasons.join('\n')
  }
  const stops = outcomes.flatMap((outcome) => (outcome.stop ? [outcome.stop.reason] : []))
  if (stops.length > 0) merged.stop = { reason: stops.filter((reason) => reason !== '').join('\n') }
  return merged
}
