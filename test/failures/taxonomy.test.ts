// The failure taxonomy and retry policy: classification from status, message and finish
// reason; which classes retry; waits; the notice and error lines a user reads.

import { describe, expect, it } from 'vitest'
import {
  classifyFinishReason,
  classifyHttp,
  DEFAULT_RETRY_POLICY,
  describeRetry,
  FAILURE_CLASSES,
  FailureError,
  isRetryable,
  retryDelay,
} from '../../src/failures/index.js'

describe('classifyHttp', () => {
  it('maps DeepSeek’s documented statuses to their classes', () => {
    expect(classifyHttp(400, 'Invalid Format')).toBe('invalid')
    expect(classifyHttp(401)).toBe('auth')
    expect(classifyHttp(402)).toBe('balance')
    expect(classifyHttp(422, 'Invalid Parameters')).toBe('invalid')
    expect(classifyHttp(429)).toBe('rate-limit')
    expect(classifyHttp(500)).toBe('server')
    expect(classifyHttp(503)).toBe('overloaded')
    expect(classifyHttp(404, 'Model Not Exist')).toBe('invalid')
  })

  it('recognises a context overflow from the 400 message', () => {
    expect(classifyHttp(400, "This model's maximum context length is 1000000 tokens.")).toBe('overflow')
    expect(classifyHttp(413)).toBe('overflow')
  })

  it('treats insufficient_system_resource as overloaded and other finish reasons as no failure', () => {
    expect(classifyFinishReason('insufficient_system_resource')).toBe('overloaded')
    expect(classifyFinishReason('length')).toBeUndefined()
    expect(classifyFinishReason('stop')).toBeUndefined()
  })
})

describe('retry policy', () => {
  it('retries only rate limits, server errors, overload, transport and stalls', () => {
    const retryable = Object.entries(FAILURE_CLASSES)
      .filter(([, info]) => info.retryable)
      .map(([name]) => name)
    expect(retryable).toEqual(['rate-limit', 'server', 'overloaded', 'transport', 'stalled'])
    expect(isRetryable('auth')).toBe(false)
  })

  it('waits for Retry-After (capped), else backs off, and stops after maxRetries', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 2 }
    expect(retryDelay(policy, { class: 'rate-limit', message: '', retryAfterMs: 3000 }, 1)).toBe(3000)
    expect(retryDelay(policy, { class: 'rate-limit', message: '', retryAfterMs: 3_600_000 }, 1)).toBe(60_000)
    expect(retryDelay(policy, { class: 'server', message: '' }, 2, () => 1)).toBe(1000)
    expect(retryDelay(policy, { class: 'server', message: '' }, 3)).toBeUndefined()
    expect(retryDelay(policy, { class: 'balance', message: '' }, 1)).toBeUndefined()
  })

  it('describes a retry the way the user sees it', () => {
    const failure = { class: 'overloaded' as const, message: 'Server Overloaded', status: 503 }
    expect(describeRetry({ attempt: 1, maxAttempts: 5, delayMs: 4000, failure })).toBe(
      'retrying in 4 s (2/5): server overloaded',
    )
    expect(describeRetry({ attempt: 2, maxAttempts: 5, delayMs: 250, failure })).toBe(
      'retrying in 0.3 s (3/5): server overloaded',
    )
  })

  it('builds one line with the class, the server’s words and the advice', () => {
    const error = new FailureError(
      { class: 'balance', status: 402, message: 'Insufficient Balance' },
      { code: 'X', what: 'model request' },
    )
    expect(error.message).toBe(
      'model request failed: insufficient balance (HTTP 402: Insufficient Balance) — top up the account balance',
    )
    expect(error.userFacing).toBe(true)
  })
})
