// Error codes of the history service (search, id prefixes, fork points).

export const HistoryErrorCode = {
  /** The query is empty or not valid search syntax. */
  InvalidQuery: 'HISTORY_INVALID_QUERY',
  /** A filter value (a date, a status) is not valid. */
  InvalidFilter: 'HISTORY_INVALID_FILTER',
  /** An id prefix matches more than one session. */
  AmbiguousId: 'HISTORY_AMBIGUOUS_ID',
  /** A title is empty or not one line of text. */
  InvalidTitle: 'HISTORY_INVALID_TITLE',
} as const
