// The PostgreSQL search's bounds of a session, added up from the server's count of its
// candidate events per bounds mark: no server needed, the rows are what the bounds query returns.

import { describe, expect, it } from 'vitest'
import { boundOf, type SessionMarksRow } from '../../../src/persistence/postgres/search.js'
import type { SearchRequest } from '../../../src/persistence/search-text.js'

function row(id: string, marks: string, lastActivity = 1000): SessionMarksRow {
  return { id, header: null, last_activity: String(lastActivity), marks }
}

const SLUG: SearchRequest = { terms: [{ tokens: ['slug'], prefix: false }], reasoning: false }

describe('boundOf', () => {
  it("adds up a session's events: each mark's count, unmarked events as two documents of any kind", () => {
    // 3 prompts (kind 0) repeating a word at most once; 2 answers (1) with reasoning (2)
    // repeating one 4 times; 2 events without a mark (empty: not indexed yet, or a word).
    expect(boundOf(row('s-a', '-b-015:3 -b-115-245:2 :1 router:1'), SLUG)).toEqual({
      sessionId: 's-a',
      lastActivity: 1000,
      docs: 3 + 2 + 2 * 2,
      kinds: [
        { kind: 'prompt', counted: 5 },
        { kind: 'answer', counted: 5 },
        { kind: 'reasoning', counted: 5 },
        { kind: 'tool-call', counted: 5 },
        { kind: 'tool-output', counted: 5 },
        { kind: 'title', counted: 5 },
      ],
    })
    expect(boundOf(row('s-b', '-b-125:1 -b-015:12', 2000), SLUG)).toEqual({
      sessionId: 's-b',
      lastActivity: 2000,
      docs: 13,
      kinds: [
        { kind: 'answer', counted: 2 },
        { kind: 'prompt', counted: 1 },
      ],
    })
  })

  it('counts reasoning only on request, and a one-word prefix by the words bound', () => {
    const marks = row('s-a', '-b-113-243:2 -b-034:1')
    const prefix: SearchRequest = { terms: [{ tokens: ['sl'], prefix: true }], reasoning: true }
    expect(boundOf(marks, SLUG)).toMatchObject({
      docs: 2 + 1,
      kinds: [
        { kind: 'answer', counted: 1 },
        { kind: 'prompt', counted: 3 },
      ],
    })
    expect(boundOf(marks, prefix)).toMatchObject({
      docs: 4 + 1,
      kinds: [
        { kind: 'answer', counted: 3 },
        { kind: 'reasoning', counted: 3 },
        { kind: 'prompt', counted: 4 },
      ],
    })
  })

  it("names a session by its header's id when the id column holds a backslash", () => {
    const bound = boundOf({ ...row('a\\u0000b', '-b-015:1'), header: { id: 'a\u0000b' } }, SLUG)
    expect(bound.sessionId).toBe('a\u0000b')
  })
})
