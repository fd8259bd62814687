// Retry timing: the server's Retry-After, jittered exponential backoff, and an abortable sleep.

import { DshError } from '../core/errors.js'

export const ABORTED_CODE = 'ABORTED'

/**
 * Milliseconds a `Retry-After` header asks for: delta-seconds (fractions tolerated) or
 * an HTTP date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === '') return undefined
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  // HTTP dates name the month; this keeps V8's lenient Date.parse from reading '-1' as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/**
 * Delay before retry number `retry` (0 for the first retry): the exponential step
 * `initialMs * 2^retry` capped at `maxMs`, jittered into its upper half so that
 * clients that failed together do not retry together.
 */
export function backoffDelayMs(
  retry: number,
  initialMs: number,
  maxMs: number,
  random = Math.random,
): number {
  const step = Math.min(maxMs, initialMs * 2 ** retry)
  return Math.round(step / 2 + random() * (step / 2))
}

/**
 * Resolves after `ms`; rejects as soon as `signal` aborts, with `abortError(signal)`
 * (default: an ABORTED DshError).
 */
export function sleep(
  ms: number,
  signal?: AbortSignal,
  abortError: (signal: AbortSignal) => Error = abortedError,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal))
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal!))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export function abortedError(signal: AbortSignal): DshError {
  return new DshError('request aborted', ABORTED_CODE, { cause: signal.reason })
}
