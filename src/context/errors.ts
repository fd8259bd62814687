// Error codes of the context seam.

export const ContextErrorCode = {
  /** The summary call failed or produced no summary; nothing was written. */
  SummaryFailed: 'CONTEXT_SUMMARY_FAILED',
  /** A PreCompact hook blocked the compaction. */
  Blocked: 'CONTEXT_COMPACTION_BLOCKED',
  /** Even a compacted request does not fit the window. */
  DoesNotFit: 'CONTEXT_DOES_NOT_FIT',
  /** The agent is busy or has nothing to compact. */
  NothingToCompact: 'CONTEXT_NOTHING_TO_COMPACT',
  Aborted: 'CONTEXT_ABORTED',
} as const
