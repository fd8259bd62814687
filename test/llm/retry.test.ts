// Retry policy helpers: Retry-After parsing and jittered exponential backoff.

import { describe, expect, it } from 'vitest'
import { backoffDelayMs, parseRetryAfterMs } from '../../src/llm/index.js'

describe('parseRetryAfterMs', () => {
  it('reads seconds, fractions and HTTP dates; ignores garbage', () => {
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfterMs('3', now)).toBe(3000)
    expect(parseRetryAfterMs(' 0.25 ', now)).toBe(250)
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000)
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0)
    expect(parseRetryAfterMs('soon', now)).toBeUndefined()
    expect(parseRetryAfterMs('-1', now)).toBeUndefined()
    expect(parseRetryAfterMs(null, now)).toBeUndefined()
    expect(parseRetryAfterMs('', now)).toBeUndefined()
  })
})

describe('backoffDelayMs', () => {
  it('doubles per retry within the upper half of each step, capped', () => {
    expect(backoffDelayMs(0, 500, 20_000, () => 0)).toBe(250)
    expect(backoffDelayMs(0, 500, 20_000, () => 1)).toBe(500)
    expect(backoffDelayMs(3, 500, 20_000, () => 0)).toBe(2000)
    expect(backoffDelayMs(3, 500, 20_000, () => 1)).toBe(4000)
    expect(backoffDelayMs(10, 500, 20_000, () => 1)).toBe(20_000)
    expect(backoffDelayMs(10, 500, 20_000, () => 0)).toBe(10_000)
  })
})
