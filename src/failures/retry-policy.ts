// The one retry policy: how many times, how long to wait (the server's Retry-After, else
// jittered exponential backoff), and the notice a user sees while dsh waits.

import { backoffDelayMs } from './retry.js'
import { FAILURE_CLASSES, type Failure, isRetryable } from './taxonomy.js'

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number
  /** First backoff step; doubles per retry, jittered. */
  initialBackoffMs: number
  /** Cap of one backoff step. */
  maxBackoffMs: number
  /** Cap on a server's Retry-After. */
  maxRetryAfterMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  initialBackoffMs: 500,
  maxBackoffMs: 20_000,
  maxRetryAfterMs: 60_000,
}

/** What a front end learns before dsh waits and tries again. */
export interface RetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number
  /** Attempts allowed in all (1 + maxRetries). */
  maxAttempts: number
  delayMs: number
  failure: Failure
}

/**
 * The wait before retrying after attempt number `attempt` (from 1) failed, or undefined
 * when the failure is not retryable or the retries are used up.
 */
export function retryDelay(
  policy: RetryPolicy,
  failure: Failure,
  attempt: number,
  random = Math.random,
): number | undefined {
  if (!isRetryable(failure) || attempt > policy.maxRetries) return undefined
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, policy.maxRetryAfterMs)
  return backoffDelayMs(attempt - 1, policy.initialBackoffMs, policy.maxBackoffMs, random)
}

/** `retrying in 4 s (2/5): server overloaded` — attempt 2 of 5 comes next. */
export function describeRetry(notice: RetryNotice): string {
  const seconds =
    notice.delayMs < 1000 ? (notice.delayMs / 1000).toFixed(1) : String(Math.round(notice.delayMs / 1000))
  const label = FAILURE_CLASSES[notice.failure.class].label
  return `retrying in ${seconds} s (${notice.attempt + 1}/${notice.maxAttempts}): ${label}`
}
