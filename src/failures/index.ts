// Public surface of the failure taxonomy and retry policy, shared by the model adapter,
// the web tools and MCP servers over HTTP.

export { FailureError, type FailureErrorOptions } from './failure-error.js'
export { abortedError, backoffDelayMs, parseRetryAfterMs, sleep } from './retry.js'
export {
  DEFAULT_RETRY_POLICY,
  describeRetry,
  type RetryNotice,
  type RetryPolicy,
  retryDelay,
} from './retry-policy.js'
export {
  classifyFinishReason,
  classifyHttp,
  FAILURE_CLASSES,
  type Failure,
  type FailureClass,
  type FailureClassInfo,
  isRetryable,
} from './taxonomy.js'
