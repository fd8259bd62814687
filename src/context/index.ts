// Public surface of the context seam: window sizes, the token estimate, compaction.

import type { Session } from '../session/session.js'
import type { ContextCompactedData } from '../session/types.js'
import type { ContextService, PreCompactState } from './service.js'

export type {
  CompactionInput,
  CompactionNotice,
  CompactionPlan,
  CompactionResult,
  CompactionTrigger,
  CompactOptions,
  Compactor,
  ContextBreakdown,
  ContextSettings,
  ContextUsage,
  PrepareOptions,
} from '../plugin-api/index.js'
export { DEFAULT_COMPACTION_THRESHOLD } from './defaults.js'
export { ContextErrorCode } from './errors.js'
export {
  ESTIMATE_ERROR,
  estimateTextTokens,
  TOKENS_PER_ASCII_CHAR,
  TOKENS_PER_OTHER_CHAR,
} from './estimate.js'
export {
  BREAKDOWN_LABELS,
  contextPercent,
  formatCompactionLine,
  formatContextUsage,
  scaledBreakdown,
} from './format.js'
export { MIN_PRUNED_TOKENS, PROTECTED_OUTPUT_SHARE, pruneCompactor } from './prune-compactor.js'
export {
  ContextService,
  MIN_OUTPUT_TOKENS,
  PRUNE_TARGET_SHARE,
  type PreCompactState,
} from './service.js'
export { summaryCompactor, TAIL_SHARE } from './summary-compactor.js'
export { summaryRequestText } from './summary-prompt.js'

declare module 'cordis' {
  interface Context {
    context: ContextService
  }
  interface Events {
    /** Before a compaction, on a durable log (PreCompact hooks); `block` stops it (see PreCompactState). */
    'context/pre-compact'(state: PreCompactState): Promise<void> | void
    /** A compaction was appended and is durable (SessionStart hooks with source `compact`). */
    'context/compacted'(session: Session, data: ContextCompactedData): Promise<void> | void
  }
}
