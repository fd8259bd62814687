// Error codes of the history service (search, id prefixes, fork points).

export const HistoryErrorCode = {
  /** The query is empty or not valid search syntax. */
  InvalidQuery: 'HISTORY_INVALID_QUERY',
  /** A filter value (a date, a status) is not valid. */
  InvalidFilter: 'HISTORY_INVALID_FILTER',
} as const
