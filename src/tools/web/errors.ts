// Error codes and failure classes of the web tools. A provider failure is a WebError with
// a class the model and the user can act on; tools turn it into a one-line error result.

import { DshError } from '../../core/errors.js'

export const WebErrorCode = {
  Failed: 'WEB_FAILED',
  NoProvider: 'WEB_NO_PROVIDER',
} as const

/**
 * Why a web call failed. The service classes (auth … transport) follow the model adapter's;
 * the rest are about the page: `not-found`, `blocked` (the site refused), `refused` (dsh's own
 * guard: scheme, private address), `too-large`, `unsupported` (a body that is not text).
 */
export const WEB_FAILURE_CLASSES = [
  'auth',
  'balance',
  'rate-limit',
  'invalid',
  'server',
  'overloaded',
  'transport',
  'timeout',
  'not-found',
  'blocked',
  'refused',
  'unsupported',
] as const
export type WebFailureClass = (typeof WEB_FAILURE_CLASSES)[number]

/** Classes where the same call may succeed later. */
const RETRYABLE: ReadonlySet<WebFailureClass> = new Set(['rate-limit', 'server', 'overloaded', 'transport'])

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
    return RETRYABLE.has(this.failureClass)
  }
}

export function isWebError(value: unknown): value is WebError {
  return value instanceof WebError
}

/** The failure class of an HTTP status from a web service (DeepSeek's error-code table). */
export function classifyServiceStatus(status: number): WebFailureClass {
  if (status === 401) return 'auth'
  if (status === 403) return 'blocked'
  if (status === 402) return 'balance'
  if (status === 429) return 'rate-limit'
  if (status === 404) return 'not-found'
  if (status === 400 || status === 422) return 'invalid'
  if (status === 503) return 'overloaded'
  if (status === 408 || status === 504) return 'timeout'
  return 'server'
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
