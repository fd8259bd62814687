// formatTokens groups thousands itself (ICU's number formats are slow to load on a cold
// start): it must read exactly like toLocaleString('en-US').

import { describe, expect, it } from 'vitest'
import { formatTokens } from '../../src/usage/index.js'
import { fc } from '../support/property.js'

describe('formatTokens', () => {
  it('groups thousands exactly like en-US toLocaleString', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (tokens) => {
        expect(formatTokens(tokens)).toBe(tokens.toLocaleString('en-US'))
      }),
    )
    for (const tokens of [0, 999, 1000, 999_999, 1_000_000, 12_345_678]) {
      expect(formatTokens(tokens)).toBe(tokens.toLocaleString('en-US'))
    }
  })
})
