// The one failure taxonomy of dsh: every failure of a request to a paid or remote service
// (model server, web tools, MCP over HTTP) falls in one class, and the class alone says
// whether a retry can help and what the user should do.

/** Why a request failed. */
export type FailureClass =
  | 'auth'
  | 'balance'
  | 'rate-limit'
  | 'overflow'
  | 'invalid'
  | 'server'
  | 'overloaded'
  | 'transport'
  | 'stalled'
  | 'runaway'

export interface FailureClassInfo {
  /** True when trying again later can succeed. */
  retryable: boolean
  /** A short phrase for notices: "retrying in 4 s (2/5): server overloaded". */
  label: string
}

export const FAILURE_CLASSES: Record<FailureClass, FailureClassInfo> = {
  auth: { retryable: false, label: 'authentication failed' },
  balance: { retryable: false, label: 'insufficient balance' },
  'rate-limit': { retryable: true, label: 'rate limit reached' },
  overflow: { retryable: false, label: 'context too long' },
  invalid: { retryable: false, label: 'invalid request' },
  server: { retryable: true, label: 'server error' },
  overloaded: { retryable: true, label: 'server overloaded' },
  transport: { retryable: true, label: 'connection failed' },
  stalled: { retryable: true, label: 'stream stalled' },
  // A response that would not end (past its duration or size bound): the same request would
  // run away again, so it is never retried blindly.
  runaway: { retryable: false, label: 'response past its bound' },
}

/** One classified failure. */
export interface Failure {
  class: FailureClass
  /** What happened, in the server's words where it gave any. */
  message: string
  /** The HTTP status, when the server answered. */
  status?: number
  /** The wait the server asked for (Retry-After), in ms. */
  retryAfterMs?: number
  /** False when this failure cannot improve on retry although its class usually can (an unknown host). */
  retryable?: false
  cause?: unknown
}

export function isRetryable(failure: Failure | FailureClass): boolean {
  if (typeof failure === 'string') return FAILURE_CLASSES[failure].retryable
  return failure.retryable !== false && FAILURE_CLASSES[failure.class].retryable
}

const OVERFLOW =
  /context length|context window|maximum context|too many tokens|prompt is too long|reduce the length/i

/**
 * Classifies an HTTP error answer from its status and the server's message:
 * 401/403 auth, 402 balance, 429 rate limit, 400/413 naming the context length overflow,
 * other 4xx invalid, 503 overloaded, 408 transport, other 5xx server.
 */
export function classifyHttp(status: number, message = ''): FailureClass {
  if (status === 401 || status === 403) return 'auth'
  if (status === 402) return 'balance'
  if (status === 429) return 'rate-limit'
  if (status === 413 || ((status === 400 || status === 422) && OVERFLOW.test(message))) return 'overflow'
  if (status === 408) return 'transport'
  if (status === 503) return 'overloaded'
  if (status >= 500 || status === 409) return 'server'
  return 'invalid'
}

/**
 * Finish reasons that mean the request failed rather than ended: DeepSeek's
 * `insufficient_system_resource` (the server ran out of capacity mid-answer) is overloaded.
 */
export function classifyFinishReason(reason: string): FailureClass | undefined {
  return reason === 'insufficient_system_resource' ? 'overloaded' : undefined
}
