// Public surface of the history service: finding and returning to past sessions.
// Every surface (CLI, chat, web) uses these, never a second copy.

export { HistoryErrorCode } from './errors.js'
export { KIND_WEIGHT, matchDocument } from './match.js'
export { MAX_QUERY_TERMS, parseQuery } from './query.js'
export { isEmptySession, latestResumable } from './resumable.js'
export { DEFAULT_SEARCH_LIMIT, parseDateFilter, searchSessions } from './search.js'
export type { SearchOptions, SearchResult } from './types.js'
