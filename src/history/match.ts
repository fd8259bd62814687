// Deciding whether a candidate document matches (every backend only narrows the
// candidates, this decides, so all backends answer the same), scoring it and cutting
// a snippet around the first match.

import { type DocumentKind, MAX_COUNTED, type SearchTerm, WORD } from '../persistence/search-text.js'

const SNIPPET_CHARS = 160

/** How much a match in each kind of text says about the session. */
export const KIND_WEIGHT: Record<DocumentKind, number> = {
  title: 3,
  prompt: 2,
  answer: 1.5,
  'tool-call': 1,
  'tool-output': 1,
  reasoning: 0.8,
}

export interface DocumentMatch {
  /** Quality of the match: occurrences (capped per term) times the kind's weight. */
  score: number
  /** The text around the first match, on one line. */
  snippet: string
  /** [start, end) character ranges of matched words in `snippet`. */
  highlights: [number, number][]
}

interface Token {
  text: string
  start: number
  end: number
}

/** The match of `terms` (all of them) in `text`, or undefined. */
export function matchDocument(
  text: string,
  kind: DocumentKind,
  terms: readonly SearchTerm[],
): DocumentMatch | undefined {
  const tokens: Token[] = []
  for (const found of text.matchAll(WORD)) {
    tokens.push({ text: found[0].toLowerCase(), start: found.index, end: found.index + found[0].length })
  }
  let score = 0
  const spans: [number, number][] = []
  for (const term of terms) {
    let count = 0
    for (let i = 0; i + term.tokens.length <= tokens.length; i++) {
      if (!termAt(tokens, i, term)) continue
      count++
      spans.push([tokens[i]!.start, tokens[i + term.tokens.length - 1]!.end])
    }
    if (count === 0) return undefined
    score += Math.min(count, MAX_COUNTED)
  }
  spans.sort((a, b) => a[0] - b[0])
  return { score: score * KIND_WEIGHT[kind], ...snippetAround(text, spans) }
}

function termAt(tokens: Token[], at: number, term: SearchTerm): boolean {
  const last = term.tokens.length - 1
  for (let j = 0; j <= last; j++) {
    const token = tokens[at + j]!.text
    const wanted = term.tokens[j]!
    if (j === last && term.prefix ? !token.startsWith(wanted) : token !== wanted) return false
  }
  return true
}

function snippetAround(
  text: string,
  spans: [number, number][],
): Pick<DocumentMatch, 'snippet' | 'highlights'> {
  const first = spans[0]!
  let start = Math.max(0, first[0] - Math.floor(SNIPPET_CHARS / 3))
  const end = Math.min(text.length, start + SNIPPET_CHARS)
  start = Math.max(0, Math.min(start, end - SNIPPET_CHARS))
  // Whitespace becomes one space each, so offsets stay valid.
  let snippet = text.slice(start, end).replace(/\s/g, ' ')
  let shift = -start
  if (start > 0) {
    snippet = `…${snippet}`
    shift += 1
  }
  if (end < text.length) snippet += '…'
  const highlights: [number, number][] = []
  for (const [from, to] of spans) {
    if (from < start || to > end) continue
    highlights.push([from + shift, to + shift])
  }
  return { snippet, highlights }
}
