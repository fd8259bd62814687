// Error codes and failure classes of the web tools. A provider failure is a WebError with
// a class the model and the user can act on; tools turn it into a one-line error result.

import { DshError } from '../../core/errors.js'
import {
  classifyHttp,
  FAILURE_CLASSES,
  type Failure,
  type FailureClass,
  isRetryable,
} from '../../failures/index.js'

export const WebErrorCode = {
  Failed: 'WEB_FAILED',
  NoProvider: 'WEB_NO_PROVIDER',
} as const

/**
 * Why a web call failed: a class of the one failure taxonomy (src/failures: auth, balance,
 * rate-limit, invalid, server, overloaded, transport, ...) or one about the page itself:
 * `timeout`, `not-found`, `blocked` (the site refused), `refused` (dsh's own guard: scheme,
 * private address), `unsupported` (a body that is not text).
 */
export const PAGE_FAILURE_CLASSES = ['timeout', 'not-found', 'blocked', 'refused', 'unsupported'] as const
export type WebFailureClass = FailureClass | (typeof PAGE_FAILURE_CLASSES)[number]

export class WebError extends DshError {
  readonly failureClass: WebFailureClass
  /** HTTP status of the failing response, when there was one. */
  readonly status: number | undefined
  /** Seconds the server asked to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined

  constructor(
    failureClass: WebFailureClass,
    message: string,
    options: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, WebErrorCode.Failed, { cause: options.cause })
    this.name = 'WebError'
    this.failureClass = failureClass
    this.status = options.status
    this.retryAfterSeconds = options.retryAfterSeconds
  }

  get retryable(): boolean {
    return isFailureClass(this.failureClass) && isRetryable(this.failureClass)
  }

  /** This error as a Failure of the shared taxonomy, for the shared retry policy. */
  toFailure(): Failure | undefined {
    if (!isFailureClass(this.failureClass)) return undefined
    return {
      class: this.failureClass,
      message: this.message,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterMs: this.retryAfterSeconds * 1000 } : {}),
    }
  }
}

export function isWebError(value: unknown): value is WebError {
  return value instanceof WebError
}

/** A web service's HTTP failure: the taxonomy's classification, except that 404 means the page was not found. */
export function classifyServiceStatus(status: number, message = ''): WebFailureClass {
  if (status === 404) return 'not-found'
  return classifyHttp(status, message)
}

/** The failure class of a target site's HTTP status (plain-HTTP fetch). */
export function classifySiteStatus(status: number): WebFailureClass {
  if (status === 404 || status === 410) return 'not-found'
  if (status === 401 || status === 403 || status === 451) return 'blocked'
  if (status === 429) return 'rate-limit'
  if (status === 408 || status === 504) return 'timeout'
  if (status === 503) return 'overloaded'
  if (status >= 500) return 'server'
  return 'invalid'
}

function isFailureClass(value: WebFailureClass): value is FailureClass {
  return Object.hasOwn(FAILURE_CLASSES, value)
}
