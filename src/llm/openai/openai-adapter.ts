// The default model adapter: OpenAI-compatible Chat Completions over SSE (DeepSeek by
// default), with retries before the first streamed chunk and abort at any moment.

import type { Context } from 'cordis'
import { DshError, errorMessage } from '../../core/errors.js'
import { LlmAdapter, type ModelRequest, type ModelStreamChunk } from '../adapter.js'
import type { Effort } from '../deepseek/effort.js'
import { LlmErrorCode } from '../errors.js'
import { LlmHttpError } from '../http-error.js'
import {
  type OpenAiCompatibleConfig,
  type ResolvedOpenAiConfig,
  requireApiKey,
  resolveOpenAiConfig,
} from './config.js'
import { encodeChatRequest } from './request.js'
import { abortedError, backoffDelayMs, isRetryableStatus, parseRetryAfterMs, sleep } from './retry.js'
import { readSseData } from './sse.js'
import { ChatStreamAssembler } from './stream-assembler.js'
import type { WireChatChunk } from './wire-types.js'

/** What `llm/retry` listeners learn before the adapter waits and tries again. */
export interface LlmRetryInfo {
  /** The attempt that failed, from 1. */
  attempt: number
  delayMs: number
  reason: string
}

type Failure =
  | { kind: 'http'; status: number; message: string; retryAfterMs?: number }
  | { kind: 'network'; message: string; cause?: unknown }
  | { kind: 'protocol'; message: string }

/** One attempt's failure, classified; stays inside this file. */
class FailedAttempt extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message)
  }
}

export class OpenAiCompatibleAdapter extends LlmAdapter {
  readonly defaultModel: string
  private readonly config: ResolvedOpenAiConfig

  override get defaultEffort(): Effort {
    return this.config.effort
  }

  constructor(ctx: Context, config: OpenAiCompatibleConfig = {}) {
    super(ctx)
    this.config = resolveOpenAiConfig(config)
    this.defaultModel = this.config.model
  }

  /**
   * Streams one completion. Retries 429, 5xx and connection failures with backoff (or the
   * server's Retry-After) as long as nothing was yielded yet; a stream that breaks after
   * that rejects with LLM_NETWORK. Missing key → LLM_NO_API_KEY, other 4xx → LLM_HTTP,
   * abort → LLM_ABORTED, malformed stream → LLM_PROTOCOL.
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamChunk> {
    const { config } = this
    const { signal } = request
    if (signal?.aborted) throw abortedError(signal)
    const apiKey = requireApiKey(config)
    const body = encodeChatRequest(request, config)
    for (let attempt = 1; ; attempt++) {
      let yielded = false
      try {
        for await (const chunk of this.attempt(body, apiKey, signal)) {
          yielded = true
          yield chunk
        }
        return
      } catch (error) {
        if (signal?.aborted) throw abortedError(signal)
        if (!(error instanceof FailedAttempt)) throw error
        const { failure } = error
        if (yielded) {
          throw new DshError(
            `the model's stream broke after it had started: ${failure.message}`,
            LlmErrorCode.Network,
            { cause: error },
          )
        }
        if (!isRetryable(failure) || attempt > config.maxRetries) throw toDshError(failure, attempt)
        const delayMs =
          failure.kind === 'http' && failure.retryAfterMs !== undefined
            ? Math.min(failure.retryAfterMs, config.maxRetryAfterMs)
            : backoffDelayMs(attempt - 1, config.initialBackoffMs, config.maxBackoffMs)
        this.ctx.emit('llm/retry', { attempt, delayMs, reason: failure.message })
        await sleep(delayMs, signal)
      }
    }
  }

  /** One HTTP exchange. Throws FailedAttempt for anything but an abort of `signal`. */
  private async *attempt(
    body: string,
    apiKey: string,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ModelStreamChunk> {
    const { endpoint, requestTimeoutMs } = this.config
    const controller = new AbortController()
    const onAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    let timedOut = false
    let settled = false
    let timer: NodeJS.Timeout | undefined
    const arm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        timedOut = true
        controller.abort()
      }, requestTimeoutMs)
    }
    let assembler: ChatStreamAssembler | undefined
    try {
      arm()
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          Authorization: `Bearer ${apiKey}`,
        },
        body,
        signal: controller.signal,
      })
      if (!response.ok) throw new FailedAttempt(await httpFailure(response))
      if (!response.body || response.headers.get('content-type')?.includes('application/json')) {
        throw new FailedAttempt({
          kind: 'protocol',
          message: 'the model server answered without an event stream (does it support stream: true?)',
        })
      }
      assembler = new ChatStreamAssembler()
      for await (const data of readSseData(response.body, arm)) {
        if (data === '[DONE]') {
          clearTimeout(timer)
          settled = true
          yield* assembler.finish()
          return
        }
        const chunk = parseChunk(data)
        if (chunk.error) {
          throw new FailedAttempt({
            kind: 'network',
            message: `the model server reported an error in the stream: ${chunk.error.message ?? 'unknown error'}`,
          })
        }
        const out = assembler.push(chunk)
        // Time spent by the consumer is not server idleness.
        clearTimeout(timer)
        yield* out
        arm()
      }
      // Some servers close after the final chunk without [DONE]; before it, the answer is cut.
      if (!assembler.messageFinished) {
        throw new FailedAttempt({
          kind: 'network',
          message: 'the connection closed before the answer finished',
        })
      }
      clearTimeout(timer)
      settled = true
      yield* assembler.finish()
    } catch (error) {
      if (signal?.aborted || error instanceof FailedAttempt) throw error
      if (error instanceof DshError) throw new FailedAttempt({ kind: 'protocol', message: error.message })
      if (assembler?.messageFinished) {
        // The message was complete; only the usage chunk or [DONE] was lost with the connection.
        yield* assembler.finish()
        return
      }
      if (timedOut) {
        throw new FailedAttempt({
          kind: 'network',
          message: `no data from the model for ${requestTimeoutMs} ms`,
        })
      }
      throw new FailedAttempt({ kind: 'network', message: networkMessage(error), cause: error })
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      // Releases the connection if the consumer stopped early. Skipped once the body was read
      // to its end: an abort then does nothing but cost an exception object per request.
      if (!settled) controller.abort()
    }
  }
}

function isRetryable(failure: Failure): boolean {
  if (failure.kind === 'http') return isRetryableStatus(failure.status)
  return failure.kind === 'network'
}

function toDshError(failure: Failure, attempts: number): DshError {
  const after = attempts > 1 ? ` (after ${attempts} attempts)` : ''
  switch (failure.kind) {
    case 'http':
      return new LlmHttpError(failure.status, failure.message, { attempts })
    case 'network':
      return new DshError(`model request failed: ${failure.message}${after}`, LlmErrorCode.Network, {
        cause: failure.cause,
      })
    case 'protocol':
      return new DshError(`model stream is malformed: ${failure.message}`, LlmErrorCode.Protocol)
  }
}

function parseChunk(data: string): WireChatChunk {
  try {
    const value: unknown = JSON.parse(data)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as WireChatChunk
  } catch {
    // Reported below with the offending text.
  }
  throw new FailedAttempt({ kind: 'protocol', message: `not a JSON object: ${data.slice(0, 200)}` })
}

async function httpFailure(response: Response): Promise<Failure> {
  let text = ''
  try {
    text = await response.text()
  } catch {
    // The body broke while reading an error: the status alone still says what happened.
  }
  return {
    kind: 'http',
    status: response.status,
    message: serverErrorMessage(text) || response.statusText,
    retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after')),
  }
}

/** The server's own explanation from an error body: `{error:{message}}`, `{message}`, `{detail}` or text. */
export function serverErrorMessage(text: string): string {
  let message = text
  try {
    const body = JSON.parse(text) as Record<string, unknown>
    const error = body.error
    const candidate =
      typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : error
    for (const value of [candidate, body.message, body.detail]) {
      if (typeof value === 'string' && value.trim() !== '') {
        message = value
        break
      }
    }
  } catch {
    // Not JSON: the text itself is the message.
  }
  const line = message.replace(/\s+/g, ' ').trim()
  return line.length > 500 ? `${line.slice(0, 500)}…` : line
}

/** `fetch failed` says little; its cause names the socket error. */
function networkMessage(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined
  const base = errorMessage(error)
  return cause === undefined ? base : `${base} (${errorMessage(cause)})`
}
