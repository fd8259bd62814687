// How a failed model request is described: the HTTP status and the server's own words
// become a Failure, a socket error names its cause, and each class gets the advice that
// names what the user should check (the key variable, the model, the URL).

import { errorMessage } from '../../core/errors.js'
import { classifyHttp, type Failure, parseRetryAfterMs } from '../../failures/index.js'
import type { PostResponse } from '../../net/index.js'
import { MODEL_NOT_EXIST_MESSAGE } from '../deepseek/strict.js'
import type { ResolvedOpenAiConfig } from './config.js'

export async function httpFailure(response: PostResponse): Promise<Failure> {
  let text = ''
  try {
    text = await response.text()
  } catch {
    // The body broke while reading an error: the status alone still says what happened.
  }
  const message = serverErrorMessage(text) || response.statusText
  const failure: Failure = { class: classifyHttp(response.status, message), status: response.status, message }
  const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'))
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs
  return failure
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

/**
 * A failure to talk to the server at all. An unknown host or an unusable address cannot
 * improve by waiting, so it fails at once; a refused or dropped connection is retried.
 */
export function transportFailure(error: unknown): Failure {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  const code = typeof cause?.code === 'string' ? cause.code : ''
  const unreachable =
    code === 'ENOTFOUND' ||
    code === 'ERR_INVALID_URL' ||
    /bad port|invalid url/i.test(String(cause?.message ?? ''))
  return {
    class: 'transport',
    message: networkMessage(error),
    cause: error,
    ...(unreachable ? { retryable: false as const } : {}),
  }
}

/** `fetch failed` says little; its cause names the socket error. */
function networkMessage(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined
  const base = errorMessage(error)
  return cause === undefined ? base : `${base} (${errorMessage(cause)})`
}

/** How a server says the model has no thinking mode (Ollama: `"<model>" does not support thinking`). */
const THINKING_REFUSED = /does not support (?:thinking|reasoning)/i

/** What the user should do about a failure, naming the key variable, model or URL concerned. */
export function adviceFor(config: ResolvedOpenAiConfig, failure: Failure, model: string): string | undefined {
  switch (failure.class) {
    case 'auth':
      return `check that ${config.apiKeyEnv} holds a valid key for ${config.baseUrl}`
    case 'balance':
      return 'top up the balance of the account (DeepSeek: platform.deepseek.com top-up page)'
    case 'invalid':
      if (failure.status === 404 || failure.message.includes(MODEL_NOT_EXIST_MESSAGE))
        return `the server does not offer the model ${JSON.stringify(model)}; \`dsh models\` lists the ones it does`
      // Ollama refuses `reasoning_effort` for a model without thinking (dsh sends the effort, `high` by default).
      return THINKING_REFUSED.test(failure.message)
        ? 'the model cannot think: set model.effort: off in the config (or pass --effort off)'
        : undefined
    case 'transport':
      return `could not reach ${config.baseUrl}: check the URL and the network (and HTTPS_PROXY, if you need one)`
    default:
      return undefined
  }
}
