// The token estimate between requests: 0.3 per ASCII character, 0.6 per other UTF-16 unit.

import { describe, expect, it } from 'vitest'
import { estimateMessage } from '../../src/context/estimate.js'
import { estimateTextTokens } from '../../src/context/index.js'
import type { ChatMessage } from '../../src/llm/types.js'

/** The rule, one unit at a time (what the fast path for ASCII text must agree with). */
function byRule(text: string): number {
  let other = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) other++
  return Math.ceil((text.length - other) * 0.3 + other * 0.6)
}

describe('estimateTextTokens', () => {
  it.each([
    ['', 0],
    ['abcdefghij', 3],
    ['\u0000\u007f', 1],
    ['é', 1],
    ['naïve café', 4],
    ['💬 emoji', 3],
    ['lone \ud800 surrogate', 6],
    ['中文字符', 3],
  ])('%j is %i tokens', (text, tokens) => {
    expect(estimateTextTokens(text)).toBe(tokens)
    expect(estimateTextTokens(text)).toBe(byRule(text))
  })

  it('agrees with the rule on long mixed text', () => {
    const long = `${'x'.repeat(100_000)}ü${'y'.repeat(50_000)}`
    expect(estimateTextTokens(long)).toBe(byRule(long))
    expect(estimateTextTokens('a'.repeat(100_001))).toBe(30_001)
  })
})

describe('estimateMessage', () => {
  it('caches out of sight: JSON, copies and equality see the message as it was', () => {
    const message: ChatMessage = { role: 'tool', toolCallId: 'c1', content: 'x'.repeat(1000) }
    expect(estimateMessage(message)).toEqual({ text: 8, toolOutput: 300, reasoning: 0 })
    expect(JSON.stringify(message)).toBe(
      JSON.stringify({ role: 'tool', toolCallId: 'c1', content: 'x'.repeat(1000) }),
    )
    expect(message).toEqual({ role: 'tool', toolCallId: 'c1', content: 'x'.repeat(1000) })
    expect(structuredClone(message)).toEqual(message)
    // A copy with other content (a pruned output) is estimated afresh, never from the cache.
    const copy = { ...message, content: 'short' }
    expect(estimateMessage(copy).toolOutput).toBe(2)
    expect(estimateMessage(Object.freeze({ role: 'user', content: 'abcdefghij' } as ChatMessage)).text).toBe(
      11,
    )
  })
})
