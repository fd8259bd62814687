// The error for a model server's HTTP failure: an LLM_HTTP DshError that carries the status.

import { DshError } from '../core/errors.js'
import { LlmErrorCode } from './errors.js'

export class LlmHttpError extends DshError {
  readonly status: number

  /** `serverMessage` is the server's own explanation, quoted in the message. */
  constructor(status: number, serverMessage: string, options: { cause?: unknown; attempts?: number } = {}) {
    const attempts = options.attempts && options.attempts > 1 ? ` (after ${options.attempts} attempts)` : ''
    const detail = serverMessage ? `: ${serverMessage}` : ''
    // Authentication, billing and unknown-model failures are the user's to fix.
    const userFacing = status === 401 || status === 402 || status === 403 || status === 404
    super(`model request failed with HTTP ${status}${detail}${attempts}`, LlmErrorCode.Http, {
      cause: options.cause,
      userFacing,
    })
    this.name = 'LlmHttpError'
    this.status = status
  }
}
