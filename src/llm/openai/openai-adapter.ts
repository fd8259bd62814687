// The default model adapter: OpenAI-compatible Chat Completions over SSE (DeepSeek by
// default), with retries before the first streamed chunk and abort at any moment.

import type { Context } from 'cordis'
import { DshError } from '../../core/errors.js'
import {
  classifyFinishReason,
  type Failure,
  FailureError,
  type RetryNotice,
  retryDelay,
} from '../../failures/index.js'
import { outboundFetch, outboundPost } from '../../net/index.js'
import { abortedError, sleep } from '../abort.js'
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
import { adviceFor, httpFailure, transportFailure } from './failures.js'
import { encodeChatRequest } from './request.js'
import { readSseData } from './sse.js'
import { ChatStreamAssembler } from './stream-assembler.js'
import type { WireChatChunk } from './wire-types.js'

/** What `llm/retry` listeners learn before the adapter waits and tries again. */
export interface LlmRetryInfo extends RetryNotice {
  /** The failure's message. */
  reason: string
}

/** One attempt's failure: classified, or a malformed stream (never retried). Stays inside this file. */
class FailedAttempt extends Error {
  constructor(readonly failure: Failure | { class: 'protocol'; message: string }) {
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
   * abort → LLM_ABORTED, malformed stream → LLM_PROTOCOL, a stream past its duration or
   * size bound → LLM_STREAM_BOUND (class `runaway`, never retried).
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamChunk> {
    const { config } = this
    const { signal } = request
    if (signal?.aborted) throw abortedError(signal)
    const apiKey = requireApiKey(config)
    const body = encodeChatRequest(request, config)
    const model = request.model ?? config.model
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
        if (failure.class === 'protocol') {
          throw new DshError(`model stream is malformed: ${failure.message}`, LlmErrorCode.Protocol)
        }
        if (failure.class === 'runaway') {
          throw new FailureError(failure, {
            code: LlmErrorCode.StreamBound,
            what: 'model request',
            attempts: attempt,
            advice: 'ask for a shorter answer, or raise the bound in the config',
          })
        }
        if (yielded) {
          // What was shown cannot be taken back, so a broken stream is not retried.
          throw new FailureError(
            { ...failure, message: `the stream broke after it had started: ${failure.message}` },
            { code: LlmErrorCode.Network, what: 'model request', attempts: attempt },
          )
        }
        const delayMs = retryDelay(config, failure, attempt)
        if (delayMs === undefined) throw this.failed(failure, attempt, model)
        const notice: RetryNotice = { attempt, maxAttempts: config.maxRetries + 1, delayMs, failure }
        request.onRetry?.(notice)
        this.ctx.emit('llm/retry', { ...notice, reason: failure.message })
        await sleep(delayMs, signal)
      }
    }
  }

  /** The models the server offers (`GET {baseUrl}/models`), by id. */
  listModels(signal?: AbortSignal): Promise<string[]> {
    return listModels(this.config, signal)
  }

  /** The error for a failure that is not retried (any more). */
  private failed(failure: Failure, attempts: number, model: string): DshError {
    const advice = this.advice(failure, model)
    if (failure.status !== undefined) return new LlmHttpError(failure, { attempts, advice })
    return new FailureError(failure, { code: LlmErrorCode.Network, what: 'model request', attempts, advice })
  }

  private advice(failure: Failure, model: string): string | undefined {
    return adviceFor(this.config, failure, model)
  }

  /** One HTTP exchange. Throws FailedAttempt for anything but an abort of `signal`. */
  private async *attempt(
    body: string,
    apiKey: string | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ModelStreamChunk> {
    const { endpoint, requestTimeoutMs, streamMaxDurationMs, streamMaxBytes } = this.config
    const controller = new AbortController()
    const onAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    // The total bound: a stream that keeps sending (so the idle timer never fires) still ends.
    let overran = false
    const deadline = setTimeout(() => {
      overran = true
      controller.abort()
    }, streamMaxDurationMs)
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
      const response = await outboundPost(endpoint, {
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          ...(apiKey !== undefined ? { Authorization: `Bearer ${apiKey}` } : {}),
        },
        body,
        signal: controller.signal,
      })
      if (!response.ok) throw new FailedAttempt(await httpFailure(response))
      this.ctx.emit('llm/answering')
      if (!response.body) {
        throw new FailedAttempt({ class: 'protocol', message: 'the model server answered without a body' })
      }
      const notStream = notEventStream(response.headers.get('content-type'))
      if (notStream) throw new FailedAttempt({ class: 'protocol', message: notStream })
      assembler = new ChatStreamAssembler()
      for await (const data of readSseData(response.body, arm)) {
        // Some servers send blank events as keep-alives: nothing to parse.
        if (data.trim() === '') continue
        if (data === '[DONE]') {
          clearTimeout(timer)
          settled = true
          yield* assembler.finish()
          return
        }
        const chunk = parseChunk(data)
        if (chunk.error) {
          throw new FailedAttempt({
            class: 'server',
            message: `the model server reported an error in the stream: ${chunk.error.message ?? 'unknown error'}`,
          })
        }
        const out = assembler.push(chunk)
        if (assembler.textBytes > streamMaxBytes) {
          throw new FailedAttempt({
            class: 'runaway',
            message: `the answer passed ${streamMaxBytes} bytes of text (model.streamMaxBytes)`,
          })
        }
        const sent = assembler.finishReasonSent
        const failed = sent === undefined ? undefined : classifyFinishReason(sent)
        if (failed) {
          throw new FailedAttempt({ class: failed, message: `the answer ended with finish_reason ${sent}` })
        }
        // Time spent by the consumer is not server idleness.
        clearTimeout(timer)
        yield* out
        arm()
      }
      // Some servers close after the final chunk without [DONE]; before it, the answer is cut.
      if (!assembler.messageFinished) {
        throw new FailedAttempt({
          class: 'transport',
          message: 'the connection closed before the answer finished',
        })
      }
      clearTimeout(timer)
      settled = true
      yield* assembler.finish()
    } catch (error) {
      if (signal?.aborted || error instanceof FailedAttempt) throw error
      if (error instanceof DshError) throw new FailedAttempt({ class: 'protocol', message: error.message })
      if (assembler?.messageFinished) {
        // The message was complete; only the usage chunk or [DONE] was lost with the connection.
        yield* assembler.finish(true)
        return
      }
      if (overran) {
        throw new FailedAttempt({
          class: 'runaway',
          message: `the answer was still streaming after ${streamMaxDurationMs} ms (model.streamMaxDurationMs)`,
        })
      }
      if (timedOut) {
        throw new FailedAttempt({
          class: 'stalled',
          message: `no data from the model for ${requestTimeoutMs} ms`,
        })
      }
      throw new FailedAttempt(transportFailure(error))
    } finally {
      clearTimeout(timer)
      clearTimeout(deadline)
      signal?.removeEventListener('abort', onAbort)
      // Releases the connection if the consumer stopped early. Skipped once the body was read
      // to its end: an abort then does nothing but cost an exception object per request.
      if (!settled) controller.abort()
    }
  }
}

/** How much of a content type an error names, and how much of malformed event data it quotes. */
const QUOTED_TYPE_CHARS = 100
const QUOTED_DATA_CHARS = 80

/**
 * Why a 200 answer of `contentType` cannot be read as the event stream asked for, or
 * undefined when it can. A JSON answer means the server ignored `stream: true`; any other
 * type (a proxy's HTML login page) is named. An answer without a content type is tried as
 * a stream.
 */
function notEventStream(contentType: string | null): string | undefined {
  const type = contentType?.trim()
  if (!type) return undefined
  const mediaType = type.split(';')[0]!.trim().toLowerCase()
  if (mediaType === 'text/event-stream') return undefined
  const named = type.length > QUOTED_TYPE_CHARS ? `${type.slice(0, QUOTED_TYPE_CHARS)}…` : type
  return mediaType === 'application/json'
    ? `the model server answered ${named} instead of an event stream (does it support stream: true?)`
    : `the model server answered ${named} instead of an event stream (text/event-stream)`
}

function parseChunk(data: string): WireChatChunk {
  try {
    const value: unknown = JSON.parse(data)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as WireChatChunk
  } catch {
    // Reported below with the offending text.
  }
  throw new FailedAttempt({
    class: 'protocol',
    message: `not a JSON object: ${quoteStart(data, QUOTED_DATA_CHARS)}`,
  })
}

/**
 * `text` as a one-line JSON string (control characters escaped), cut to its first
 * `maxChars` characters with its full length after an ellipsis when longer.
 */
function quoteStart(text: string, maxChars: number): string {
  if (text.length <= maxChars) return JSON.stringify(text)
  return `${JSON.stringify(text.slice(0, maxChars))}… (${text.length} characters)`
}

/** The models a server offers (`GET {baseUrl}/models`), by id, in the server's order. */
export async function listModels(config: ResolvedOpenAiConfig, signal?: AbortSignal): Promise<string[]> {
  const apiKey = requireApiKey(config)
  const fetch = await outboundFetch()
  let response: Response
  try {
    response = await fetch(`${config.baseUrl}/models`, {
      headers: {
        Accept: 'application/json',
        ...(apiKey !== undefined ? { Authorization: `Bearer ${apiKey}` } : {}),
      },
      ...(signal ? { signal } : {}),
    })
  } catch (error) {
    const failure = transportFailure(error)
    throw new FailureError(failure, {
      code: LlmErrorCode.Network,
      what: 'listing models',
      advice: adviceFor(config, failure, ''),
    })
  }
  if (!response.ok) {
    const failure = await httpFailure(response)
    throw new LlmHttpError(failure, { what: 'listing models', advice: adviceFor(config, failure, '') })
  }
  const body = (await response.json()) as { data?: { id?: unknown }[] }
  return (body.data ?? []).flatMap((entry) => (typeof entry.id === 'string' ? [entry.id] : []))
}
