// The error for a model server's HTTP failure: an LLM_HTTP FailureError that carries the status.

import { type Failure, FailureError } from '../failures/index.js'
import { LlmErrorCode } from './errors.js'

export class LlmHttpError extends FailureError {
  readonly status: number

  constructor(failure: Failure, options: { attempts?: number; advice?: string; what?: string } = {}) {
    super(failure, {
      code: LlmErrorCode.Http,
      what: options.what ?? 'model request',
      ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
      ...(options.advice !== undefined ? { advice: options.advice } : {}),
    })
    this.name = 'LlmHttpError'
    this.status = failure.status ?? 0
  }
}
