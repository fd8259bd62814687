// The model seam's abort: an LLM_ABORTED error, and a sleep that rejects with it.

import { DshError } from '../core/errors.js'
import { sleep as sleepOrAbort } from '../failures/retry.js'
import { LlmErrorCode } from './errors.js'

export function abortedError(signal: AbortSignal): DshError {
  return new DshError('model request aborted', LlmErrorCode.Aborted, { cause: signal.reason })
}

/** Resolves after `ms`; rejects with LLM_ABORTED as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepOrAbort(ms, signal, abortedError)
}
