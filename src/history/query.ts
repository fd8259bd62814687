// The search syntax: words (each must match), "exact phrases", and a trailing `*` for a
// prefix (`slug*`, `"fix the sl"*`). A word with punctuation inside (`slug-bug`,
// `foo.ts`) is the phrase of its parts, as every backend's tokenizer splits it.

import { DshError } from '../core/errors.js'
import { type SearchTerm, tokenize } from '../persistence/search-text.js'
import { HistoryErrorCode } from './errors.js'

/** At most this many terms: each one is a condition every backend must evaluate. */
export const MAX_QUERY_TERMS = 16

/** Parses a query into terms; rejects with HISTORY_INVALID_QUERY (one user-facing line). */
export function parseQuery(query: string): SearchTerm[] {
  const terms: SearchTerm[] = []
  let i = 0
  while (i < query.length) {
    const char = query[i]!
    if (/\s/.test(char)) {
      i++
      continue
    }
    let raw: string
    if (char === '"') {
      const close = query.indexOf('"', i + 1)
      if (close === -1) throw invalid(`unclosed quote in ${JSON.stringify(query)}`)
      raw = query.slice(i + 1, close)
      i = close + 1
    } else {
      let end = i
      while (end < query.length && !/\s/.test(query[end]!) && query[end] !== '"') end++
      raw = query.slice(i, end)
      i = end
    }
    let prefix = false
    if (query[i] === '*') {
      prefix = true
      i++
    } else if (char !== '"' && raw.endsWith('*')) {
      prefix = true
      raw = raw.slice(0, -1)
    }
    if (i < query.length && !/\s/.test(query[i]!)) {
      throw invalid(`${JSON.stringify(query.slice(0, i + 1))}: put a space between terms`)
    }
    if (raw.includes('*')) throw invalid(`"*" may only end a term (in ${JSON.stringify(raw)})`)
    const tokens = tokenize(raw)
    if (tokens.length === 0) {
      throw invalid(`${JSON.stringify(raw || char)} has no letters or digits to search for`)
    }
    terms.push({ tokens, prefix })
  }
  if (terms.length === 0) throw invalid('the search query is empty')
  if (terms.length > MAX_QUERY_TERMS)
    throw invalid(`at most ${MAX_QUERY_TERMS} search terms (got ${terms.length})`)
  return terms
}

function invalid(message: string): DshError {
  return new DshError(`invalid search: ${message}`, HistoryErrorCode.InvalidQuery, { userFacing: true })
}
