// Public surface of the history service: finding and returning to past sessions.
// Every surface (CLI, chat, web) uses these, never a second copy.

export { HistoryErrorCode } from './errors.js'
export { MIN_ID_PREFIX, resolveSessionId, type SessionIdSource } from './ids.js'
export { KIND_WEIGHT, matchDocument } from './match.js'
export { modelTitlePlugin, modelWritesTitles, TITLE_CLOSE_WAIT_MS } from './model-title.js'
export { MAX_QUERY_TERMS, parseQuery } from './query.js'
export { MAX_TITLE_LENGTH, normalizeTitle, renameStored, titleData } from './rename.js'
export { isEmptySession, latestResumable } from './resumable.js'
export { DEFAULT_SEARCH_LIMIT, parseDateFilter, searchSessions } from './search.js'
export {
  TITLE_SYSTEM_PROMPT,
  titleFromReply,
  titleRequest,
} from './title-request.js'
export type { SearchOptions, SearchResult } from './types.js'
