// The PostgreSQL search's bounds, added up per session from the server's counts of each
// (session, bounds mark) pair: no server needed, the rows are what the bounds query returns.

import { describe, expect, it } from 'vitest'
import { boundsOf, type MarkCountRow } from '../../../src/persistence/postgres/search.js'
import type { SearchRequest } from '../../../src/persistence/search-text.js'

const KEY_A = Buffer.from('aa', 'hex')
const KEY_B = Buffer.from('bb', 'hex')

function row(key: Buffer, id: string, mark: string | null, n: number, lastActivity = 1000): MarkCountRow {
  return { key, id, header: null, last_activity: String(lastActivity), mark, n }
}

const SLUG: SearchRequest = { terms: [{ tokens: ['slug'], prefix: false }], reasoning: false }

describe('boundsOf', () => {
  it("adds up a session's rows, whatever their order among other sessions' rows", () => {
    const bounds = boundsOf(
      [
        // Prompts (kind 0) repeating a word at most once, in 3 events.
        row(KEY_A, 's-a', '-b-015', 3),
        row(KEY_B, 's-b', '-b-125', 1, 2000), // an answer repeating a word twice
        // An answer (1) with reasoning (2) repeating a word 4 times.
        row(KEY_A, 's-a', '-b-115-245', 2),
        // Two events without a mark: two documents each, of any kind, counting the most.
        row(KEY_A, 's-a', null, 2),
      ],
      SLUG,
    )
    expect(bounds).toEqual([
      {
        sessionId: 's-a',
        lastActivity: 1000,
        docs: 3 + 2 + 2 * 2,
        handle: KEY_A,
        kinds: [
          { kind: 'prompt', counted: 5 },
          { kind: 'answer', counted: 5 },
          { kind: 'reasoning', counted: 5 },
          { kind: 'tool-call', counted: 5 },
          { kind: 'tool-output', counted: 5 },
          { kind: 'title', counted: 5 },
        ],
      },
      {
        sessionId: 's-b',
        lastActivity: 2000,
        docs: 1,
        handle: KEY_B,
        kinds: [{ kind: 'answer', counted: 2 }],
      },
    ])
  })

  it('counts reasoning only on request, and a one-word prefix by the words bound', () => {
    const rows = [row(KEY_A, 's-a', '-b-113-243', 2), row(KEY_A, 's-a', '-b-034', 1)]
    const prefix: SearchRequest = { terms: [{ tokens: ['sl'], prefix: true }], reasoning: true }
    expect(boundsOf(rows, SLUG)[0]).toMatchObject({
      docs: 2 + 1,
      kinds: [
        { kind: 'answer', counted: 1 },
        { kind: 'prompt', counted: 3 },
      ],
    })
    expect(boundsOf(rows, prefix)[0]).toMatchObject({
      docs: 4 + 1,
      kinds: [
        { kind: 'answer', counted: 3 },
        { kind: 'reasoning', counted: 3 },
        { kind: 'prompt', counted: 4 },
      ],
    })
  })

  it("names a session by its header's id when the id column holds a backslash", () => {
    const [bound] = boundsOf([{ ...row(KEY_A, 'a\\u0000b', '-b-015', 1), header: { id: 'a\u0000b' } }], SLUG)
    expect(bound!.sessionId).toBe('a\u0000b')
  })
})
