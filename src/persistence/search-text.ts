// What session search reads, shared by every backend so each one indexes the same words:
// the searchable documents of an event (prompt, answer, reasoning, tool call, tool output,
// title), the one tokenizer, and the request a backend answers with candidate documents.

import type { SessionEvent, SessionEventMap, SessionId } from '../session/types.js'

/** The kinds of searchable text an event holds. `reasoning` is searched only on request. */
export type DocumentKind = 'prompt' | 'answer' | 'reasoning' | 'tool-call' | 'tool-output' | 'title'

/** Every kind, each's index its code in the indexes that store one (never reorder). */
export const DOCUMENT_KINDS: readonly DocumentKind[] = [
  'prompt',
  'answer',
  'reasoning',
  'tool-call',
  'tool-output',
  'title',
]

/** The event types that hold searchable text (every backend indexes exactly these). */
export const SEARCHED_EVENT_TYPES = [
  'user/message',
  'assistant/message',
  'tool/call',
  'tool/result',
  'session/title',
] as const

/** One query term: its lower-case tokens, matched as a phrase; `prefix`: the last token is a prefix. */
export interface SearchTerm {
  tokens: string[]
  prefix: boolean
}

/** A piece of text of one event that may match. */
export interface SearchDocument {
  sessionId: SessionId
  seq: number
  /**
   * The turn the event belongs to (the last `turn/start` at or before it; 0 before any);
   * undefined when the backend looks it up only for the results (`turnAt`).
   */
  turn?: number
  kind: DocumentKind
  text: string
}

/** Occurrences of one term counted at most in a document: a text repeating a word is not ten times better. */
export const MAX_COUNTED = 5

/**
 * What an indexed backend knows of a session's candidates before reading any text, so
 * the history service can leave out sessions that cannot reach the results.
 */
export interface SessionBound {
  sessionId: SessionId
  /** The session's last activity, as its summary gives it. */
  lastActivity: number
  /** How many candidate documents it has (at least as many as match). */
  docs: number
  /**
   * Per kind of text among them: an upper bound of Σ over the terms of
   * min(occurrences, MAX_COUNTED) in any one document of that kind.
   */
  kinds: { kind: DocumentKind; counted: number }[]
  /** The backend's own handle on these documents (for `searchDocumentsOf`). */
  handle?: unknown
}

export interface SearchRequest {
  /** Every term must match one document (AND). Never empty. */
  terms: SearchTerm[]
  /** Only sessions whose cwd is this folder; undefined: every folder. */
  cwd?: string
  /** Whether `reasoning` documents may be passed on (they may always be, the caller filters). */
  reasoning: boolean
  /** A log or row that cannot be read is skipped and named here, never silently. */
  onSkipped?: (where: string, reason: string) => void
}

/**
 * Word characters of the one tokenizer: Unicode letters and digits. SQLite's FTS5
 * `unicode61` tokenizer splits the same way, and PostgreSQL stores these very tokens.
 */
export const WORD = /[\p{L}\p{N}]+/gu

/**
 * Bounds of what a term can count in `text`: min(MAX_COUNTED, occurrences of its most
 * repeated word) and min(MAX_COUNTED, its number of words). A term occurs at most as often
 * as its first word, and a one-word prefix at most once per word. Words are found and
 * lower-cased one by one, exactly as the history service's matching does.
 */
export function countBounds(text: string): { repeat: number; words: number } {
  const seen = new Map<string, number>()
  let repeat = 0
  let words = 0
  for (const found of text.matchAll(WORD)) {
    words++
    if (repeat >= MAX_COUNTED) break // then words ≥ MAX_COUNTED too
    const word = found[0].toLowerCase()
    const count = (seen.get(word) ?? 0) + 1
    seen.set(word, count)
    if (count > repeat) repeat = count
  }
  return { repeat: Math.min(repeat, MAX_COUNTED), words: Math.min(words, MAX_COUNTED) }
}

/** The bound of a document's Σ over `terms` of min(occurrences, MAX_COUNTED), from `countBounds`. */
export function countedBound(
  terms: readonly SearchTerm[],
  bounds: { repeat: number; words: number },
): number {
  let total = 0
  for (const term of terms) total += oneWordPrefix(term) ? bounds.words : bounds.repeat
  return total
}

/** A one-word prefix term (`slug*`): any word starting so counts, not only repeats of one word. */
export function oneWordPrefix(term: SearchTerm): boolean {
  return term.prefix && term.tokens.length === 1
}

/** The lower-case tokens of `text`, in order. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? []
}

/** The searchable documents of one event (none for events without searchable text). */
export function documentsOf(type: string, data: unknown): { kind: DocumentKind; text: string }[] {
  if (data === null || typeof data !== 'object') return []
  switch (type) {
    case 'user/message':
      return textDoc('prompt', (data as SessionEventMap['user/message']).text)
    case 'assistant/message': {
      const message = (data as SessionEventMap['assistant/message']).message
      if (!message || typeof message !== 'object') return []
      return [...textDoc('answer', message.content), ...textDoc('reasoning', message.reasoning)]
    }
    case 'tool/call': {
      const call = data as SessionEventMap['tool/call']
      const name = typeof call.name === 'string' ? call.name : ''
      const args = typeof call.arguments === 'string' ? call.arguments : ''
      return textDoc('tool-call', `${name} ${args}`.trim())
    }
    case 'tool/result':
      return textDoc('tool-output', (data as SessionEventMap['tool/result']).content)
    case 'session/title':
      return textDoc('title', (data as { title?: unknown }).title)
    default:
      return []
  }
}

function textDoc(kind: DocumentKind, text: unknown): { kind: DocumentKind; text: string }[] {
  return typeof text === 'string' && text.length > 0 ? [{ kind, text }] : []
}

/**
 * Walks a session's events in order, passing on each searchable document with its turn.
 * The generic scan of backends without an index (memory) and the streaming JSONL reader.
 */
export class DocumentWalker {
  private turn = 0

  /** `turns` false: the caller does not pass every `turn/start`, documents go without a turn. */
  constructor(
    private readonly sessionId: SessionId,
    private readonly reasoning: boolean,
    private readonly visit: (doc: SearchDocument) => void,
    private readonly turns = true,
  ) {}

  event(event: Pick<SessionEvent, 'seq' | 'type' | 'data'>): void {
    if (event.type === 'turn/start') {
      const turn = (event.data as { turn?: unknown } | null)?.turn
      if (typeof turn === 'number') this.turn = turn
      return
    }
    for (const doc of documentsOf(event.type, event.data)) {
      if (doc.kind === 'reasoning' && !this.reasoning) continue
      this.visit({
        sessionId: this.sessionId,
        seq: event.seq,
        turn: this.turns ? this.turn : undefined,
        kind: doc.kind,
        text: doc.text,
      })
    }
  }
}
