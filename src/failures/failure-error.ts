// The error a failed request rejects with: a DshError carrying its classified failure, a
// one-line message that says what to do, and whether the user can fix it themselves.

import { DshError } from '../core/errors.js'
import { FAILURE_CLASSES, type Failure } from './taxonomy.js'

export interface FailureErrorOptions {
  /** The seam's error code (callers branch on it). */
  code: string
  /** What failed: "model request", "web fetch". */
  what: string
  attempts?: number
  /** What the user should do, appended after a dash. Default: the class's own advice. */
  advice?: string
}

export class FailureError extends DshError {
  readonly failure: Failure
  readonly attempts: number

  constructor(failure: Failure, options: FailureErrorOptions) {
    const attempts = options.attempts ?? 1
    const status = failure.status !== undefined ? `HTTP ${failure.status}` : ''
    const detail = [status, failure.message].filter(Boolean).join(': ')
    const label = FAILURE_CLASSES[failure.class].label
    const after = attempts > 1 ? ` after ${attempts} attempts` : ''
    const advice = options.advice ?? defaultAdvice(failure)
    super(
      `${options.what} failed${after}: ${label}${detail ? ` (${detail})` : ''}${advice ? ` — ${advice}` : ''}`,
      options.code,
      // A classified failure is an expected outcome with its own explanation: one line, no stack.
      { cause: failure.cause, userFacing: true },
    )
    this.name = 'FailureError'
    this.failure = failure
    this.attempts = attempts
  }
}

function defaultAdvice(failure: Failure): string {
  switch (failure.class) {
    case 'auth':
      return 'check the API key'
    case 'balance':
      return 'top up the account balance'
    case 'overflow':
      return 'the conversation no longer fits: compact it (/compact, or dsh sessions compact <id>), shorten the message, or start a new session'
    case 'rate-limit':
    case 'overloaded':
    case 'server':
      return 'try again in a while'
    case 'transport':
    case 'stalled':
      return 'check the network (and HTTPS_PROXY, if you need one)'
    default:
      return ''
  }
}
