// The one wording of a compaction boundary and of the window's fill, shared by the front ends.

import { describe, expect, it } from 'vitest'
import { contextPercent, formatCompactionLine, formatContextUsage } from '../../src/context/index.js'

describe('context formats', () => {
  it('writes a boundary as `context compacted: 812k → 41k tokens`', () => {
    expect(formatCompactionLine({ tokensBefore: 812_000, tokensAfter: 41_000 })).toBe(
      'context compacted: 812k → 41k tokens',
    )
    expect(formatCompactionLine({ tokensBefore: 8_512, tokensAfter: 950 })).toBe(
      'context compacted: 8.5k → 950 tokens',
    )
  })

  it('gives the percentage of the window, or only the tokens when the window is unknown', () => {
    expect(formatContextUsage({ tokens: 53_000, window: 128_000 })).toBe('context 41% (53k of 128k tokens)')
    expect(contextPercent({ tokens: 53_000, window: 128_000 })).toBe(41)
    expect(formatContextUsage({ tokens: 53_000, window: null })).toBe('context 53k tokens')
    expect(formatContextUsage({ tokens: 53_000 })).toBe('context 53k tokens')
    expect(contextPercent({ tokens: 53_000, window: null })).toBeUndefined()
  })
})
