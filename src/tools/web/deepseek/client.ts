// One JSON POST to a DeepSeek tool endpoint with the model's key: retries the retryable
// failure classes (rate limit with its Retry-After, 5xx, dropped connections) with the
// model adapter's backoff, and turns every failure into a classified WebError.

import { errorMessage } from '../../../core/errors.js'
import {
  type Failure,
  parseRetryAfterMs,
  type RetryPolicy,
  retryDelay,
  sleep,
} from '../../../failures/index.js'
import { toolsRoot } from '../../../llm/deepseek/web-tools-wire.js'
import { outboundFetch } from '../../../net/index.js'
import { classifyServiceStatus, isWebError, WebError } from '../errors.js'

export interface DeepSeekToolsOptions {
  /** The model's base URL (`https://api.deepseek.com`); the tool paths are added to its root. */
  baseUrl: string
  /** Answers the API key at call time (undefined: none configured). */
  apiKey: () => string | undefined
  /** Named in the error when the key is missing. */
  apiKeyEnv: string
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number
  /** Per attempt. Default 60 s (the guide's curl samples use --max-time 60). */
  timeoutMs?: number
  initialBackoffMs?: number
  maxBackoffMs?: number
  /** Longest Retry-After honoured before failing instead. Default 30 s. */
  maxRetryAfterMs?: number
}

export class DeepSeekToolsClient {
  constructor(private readonly options: DeepSeekToolsOptions) {}

  /** POSTs `body` to `path`; resolves the parsed JSON of a 2xx answer. */
  async post(path: string, body: unknown, signal: AbortSignal, label: string): Promise<unknown> {
    const key = this.options.apiKey()
    if (!key)
      throw new WebError(
        'auth',
        `${label}: no API key: set the ${this.options.apiKeyEnv} environment variable`,
      )
    const maxRetries = this.options.maxRetries ?? 2
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(path, body, key, signal, label)
      } catch (error) {
        if (!isWebError(error) || !error.retryable || attempt >= maxRetries || signal.aborted) throw error
        const failure = error.toFailure()
        const waitMs = failure && this.delayMs(failure, attempt + 1)
        if (waitMs === undefined) throw error
        await sleep(waitMs, signal).catch(() => {
          throw new WebError('transport', `${label}: cancelled`)
        })
      }
    }
  }

  /** The shared retry policy's wait; a Retry-After beyond the cap fails the call instead of waiting. */
  private delayMs(failure: Failure, attempt: number): number | undefined {
    const policy: RetryPolicy = {
      maxRetries: this.options.maxRetries ?? 2,
      initialBackoffMs: this.options.initialBackoffMs ?? 500,
      maxBackoffMs: this.options.maxBackoffMs ?? 8_000,
      maxRetryAfterMs: this.options.maxRetryAfterMs ?? 30_000,
    }
    if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) return undefined
    return retryDelay(policy, failure, attempt)
  }

  private async once(
    path: string,
    body: unknown,
    key: string,
    signal: AbortSignal,
    label: string,
  ): Promise<unknown> {
    const timeoutMs = this.options.timeoutMs ?? 60_000
    const deadline = AbortSignal.timeout(timeoutMs)
    let response: Response
    let text: string
    try {
      const fetch = await outboundFetch()
      response = await fetch(`${toolsRoot(this.options.baseUrl)}${path}`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, deadline]),
      })
      text = await response.text()
    } catch (error) {
      if (deadline.aborted) throw new WebError('timeout', `${label}: no answer within ${timeoutMs} ms`)
      if (signal.aborted) throw new WebError('transport', `${label}: cancelled`)
      throw new WebError('transport', `${label}: ${errorMessage(error)}`, { cause: error })
    }
    if (!response.ok) {
      const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'))
      throw new WebError(
        classifyServiceStatus(response.status),
        `${label}: ${serverMessage(text, response.status)}`,
        {
          status: response.status,
          ...(retryAfterMs !== undefined ? { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) } : {}),
        },
      )
    }
    try {
      return JSON.parse(text)
    } catch {
      throw new WebError('server', `${label}: the answer is not JSON`)
    }
  }
}

/** DeepSeek's `{"error": {"message": ...}}`, else the start of the body, else the status. */
function serverMessage(text: string, status: number): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } }
    if (typeof parsed.error?.message === 'string' && parsed.error.message) return parsed.error.message
  } catch {
    // Not JSON: fall back to the text itself.
  }
  return text.trim().slice(0, 200) || `HTTP ${status}`
}
