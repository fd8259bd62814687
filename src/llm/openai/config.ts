// Configuration of the OpenAI-compatible adapter: the fields, their documented
// defaults, and resolution into a complete spec. The API key is looked up per request.

import { DshError } from '../../core/errors.js'
import { DEFAULT_EFFORT, type Effort } from '../deepseek/effort.js'
import { DEEPSEEK_DEFAULT_MODEL } from '../deepseek/models.js'
import { LlmErrorCode } from '../errors.js'

export interface OpenAiCompatibleConfig {
  /** Server root; `/chat/completions` is appended. Default: `$DEEPSEEK_BASE_URL`, else DEFAULT_BASE_URL. */
  baseUrl?: string
  /** The key itself. Takes precedence over `apiKeyEnv`. */
  apiKey?: string
  /** Environment variable holding the key. Default DEFAULT_API_KEY_ENV. */
  apiKeyEnv?: string
  /** The server needs no key (`model.apiKey: none`): none is looked up or sent. */
  noKey?: boolean
  /** Model used when a request names none. Default DEFAULT_MODEL. */
  model?: string
  /** Thinking effort used when a request names none. Default DEFAULT_EFFORT. */
  effort?: Effort
  /** `max_tokens` sent when a request names none. Default DEFAULT_MAX_TOKENS. */
  maxTokens?: number
  /** Retries after the first attempt, for 429, 5xx and dropped connections. Default 4. */
  maxRetries?: number
  /** First backoff step; doubles per retry, jittered. Default 500 ms. */
  initialBackoffMs?: number
  /** Cap of one backoff step. Default 20 000 ms. */
  maxBackoffMs?: number
  /** Cap on a server's `Retry-After`. Default 60 000 ms. */
  maxRetryAfterMs?: number
  /**
   * Stream idle deadline: the longest wait for response headers or between two pieces of
   * the stream (keep-alive comments count). Default 300 000 ms.
   */
  requestTimeoutMs?: number
  /** Longest one attempt's stream may run, headers to end. Default DEFAULT_STREAM_MAX_DURATION_MS (30 min). */
  streamMaxDurationMs?: number
  /**
   * Most text one stream may bring (UTF-8 bytes of answer, reasoning and tool-call
   * arguments). Default DEFAULT_STREAM_MAX_BYTES (64 MiB).
   */
  streamMaxBytes?: number
}

export const DEFAULT_BASE_URL = 'https://api.deepseek.com'
export const DEFAULT_API_KEY_ENV = 'DEEPSEEK_API_KEY'
export const BASE_URL_ENV = 'DEEPSEEK_BASE_URL'
export const DEFAULT_MODEL = DEEPSEEK_DEFAULT_MODEL
/**
 * Output budget sent with every request. DeepSeek's own default output limit is far below
 * the 384K its models allow, so thinking plus a long answer would be cut ("length");
 * billing counts only the tokens produced, so a generous cap costs nothing.
 */
export const DEFAULT_MAX_TOKENS = 131_072
export const DEFAULT_MAX_RETRIES = 4
export const DEFAULT_INITIAL_BACKOFF_MS = 500
export const DEFAULT_MAX_BACKOFF_MS = 20_000
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000
/** Far past any real answer (DeepSeek streams a max_tokens answer in minutes), short of forever. */
export const DEFAULT_STREAM_MAX_DURATION_MS = 30 * 60_000
export const DEFAULT_STREAM_MAX_BYTES = 64 * 1024 * 1024

export interface ResolvedOpenAiConfig {
  /** The server root without a trailing slash. */
  baseUrl: string
  /** The full endpoint, `{baseUrl}/chat/completions`. */
  endpoint: string
  apiKey: string | undefined
  apiKeyEnv: string
  /**
   * Whether a request may go without a key: `model.apiKey: none`, or a base URL on loopback
   * (a local Ollama, vLLM or llama.cpp server). A key that is set is still sent on loopback.
   */
  keyOptional: boolean
  /** `model.apiKey: none`: never send a key, even when the variable is set. */
  noKey: boolean
  model: string
  effort: Effort
  maxTokens: number
  maxRetries: number
  initialBackoffMs: number
  maxBackoffMs: number
  maxRetryAfterMs: number
  requestTimeoutMs: number
  streamMaxDurationMs: number
  streamMaxBytes: number
}

/** Fills every default. Reads `DEEPSEEK_BASE_URL` from `env` (blank counts as unset). */
export function resolveOpenAiConfig(
  config: OpenAiCompatibleConfig = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOpenAiConfig {
  const fromConfig = nonBlank(config.baseUrl)
  const given = fromConfig ?? nonBlank(env[BASE_URL_ENV]) ?? DEFAULT_BASE_URL
  const baseUrl = checkBaseUrl(given, fromConfig !== undefined ? 'model.baseUrl' : BASE_URL_ENV).replace(
    /\/+$/,
    '',
  )
  return {
    baseUrl,
    endpoint: `${baseUrl}/chat/completions`,
    apiKey: nonBlank(config.apiKey),
    apiKeyEnv: nonBlank(config.apiKeyEnv) ?? DEFAULT_API_KEY_ENV,
    keyOptional: config.noKey === true || isLoopbackUrl(baseUrl),
    noKey: config.noKey === true,
    model: nonBlank(config.model) ?? DEFAULT_MODEL,
    effort: config.effort ?? DEFAULT_EFFORT,
    maxTokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxRetries: config.maxRetries ?? DEFAULT_MAX_RETRIES,
    initialBackoffMs: config.initialBackoffMs ?? DEFAULT_INITIAL_BACKOFF_MS,
    maxBackoffMs: config.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS,
    maxRetryAfterMs: config.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    streamMaxDurationMs: config.streamMaxDurationMs ?? DEFAULT_STREAM_MAX_DURATION_MS,
    streamMaxBytes: config.streamMaxBytes ?? DEFAULT_STREAM_MAX_BYTES,
  }
}

/**
 * The API key for a request: the configured one, else the environment variable; undefined
 * (send no Authorization header) when the server needs none — `model.apiKey: none`, or a
 * loopback base URL without a key set.
 */
export function requireApiKey(
  config: ResolvedOpenAiConfig,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (config.noKey) return undefined
  const key = config.apiKey ?? nonBlank(env[config.apiKeyEnv])
  if (key) return key
  if (config.keyOptional) return undefined
  throw new DshError(
    `no API key for the model: set the ${config.apiKeyEnv} environment variable`,
    LlmErrorCode.NoApiKey,
    { userFacing: true },
  )
}

/** A base URL must be an absolute http(s) URL; anything else fails at once, naming it. */
function checkBaseUrl(value: string, source: string): string {
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    // Reported below.
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return value
  throw new DshError(
    `${source}: ${JSON.stringify(value)} is not a usable model server URL (expected http:// or https://, e.g. ${DEFAULT_BASE_URL})`,
    LlmErrorCode.BadBaseUrl,
    { userFacing: true },
  )
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

/** True for `localhost`, 127.0.0.0/8 and `[::1]`: a server on this machine. */
export function isLoopbackUrl(url: string): boolean {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return false
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
