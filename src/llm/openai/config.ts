// Configuration of the OpenAI-compatible adapter: the fields, their documented
// defaults, and resolution into a complete spec. The API key is looked up per request.

import { DshError } from '../../core/errors.js'
import { LlmErrorCode } from '../errors.js'

export interface OpenAiCompatibleConfig {
  /** Server root; `/chat/completions` is appended. Default: `$DEEPSEEK_BASE_URL`, else DEFAULT_BASE_URL. */
  baseUrl?: string
  /** The key itself. Takes precedence over `apiKeyEnv`. */
  apiKey?: string
  /** Environment variable holding the key. Default DEFAULT_API_KEY_ENV. */
  apiKeyEnv?: string
  /** Model used when a request names none. Default DEFAULT_MODEL. */
  model?: string
  /** Retries after the first attempt, for 429, 5xx and dropped connections. Default 4. */
  maxRetries?: number
  /** First backoff step; doubles per retry, jittered. Default 500 ms. */
  initialBackoffMs?: number
  /** Cap of one backoff step. Default 20 000 ms. */
  maxBackoffMs?: number
  /** Cap on a server's `Retry-After`. Default 60 000 ms. */
  maxRetryAfterMs?: number
  /** Longest wait for response headers or between two pieces of the stream. Default 300 000 ms. */
  requestTimeoutMs?: number
}

export const DEFAULT_BASE_URL = 'https://api.deepseek.com'
export const DEFAULT_API_KEY_ENV = 'DEEPSEEK_API_KEY'
export const BASE_URL_ENV = 'DEEPSEEK_BASE_URL'
export const DEFAULT_MODEL = 'deepseek-chat'
export const DEFAULT_MAX_RETRIES = 4
export const DEFAULT_INITIAL_BACKOFF_MS = 500
export const DEFAULT_MAX_BACKOFF_MS = 20_000
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000

export interface ResolvedOpenAiConfig {
  /** The full endpoint, `{baseUrl}/chat/completions`. */
  endpoint: string
  apiKey: string | undefined
  apiKeyEnv: string
  model: string
  maxRetries: number
  initialBackoffMs: number
  maxBackoffMs: number
  maxRetryAfterMs: number
  requestTimeoutMs: number
}

/** Fills every default. Reads `DEEPSEEK_BASE_URL` from `env` (blank counts as unset). */
export function resolveOpenAiConfig(
  config: OpenAiCompatibleConfig = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOpenAiConfig {
  const baseUrl = nonBlank(config.baseUrl) ?? nonBlank(env[BASE_URL_ENV]) ?? DEFAULT_BASE_URL
  return {
    endpoint: `${baseUrl.replace(/\/+$/, '')}/chat/completions`,
    apiKey: nonBlank(config.apiKey),
    apiKeyEnv: nonBlank(config.apiKeyEnv) ?? DEFAULT_API_KEY_ENV,
    model: nonBlank(config.model) ?? DEFAULT_MODEL,
    maxRetries: config.maxRetries ?? DEFAULT_MAX_RETRIES,
    initialBackoffMs: config.initialBackoffMs ?? DEFAULT_INITIAL_BACKOFF_MS,
    maxBackoffMs: config.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS,
    maxRetryAfterMs: config.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  }
}

/** The API key for a request: the configured one, else the environment variable. */
export function requireApiKey(config: ResolvedOpenAiConfig, env: NodeJS.ProcessEnv = process.env): string {
  const key = config.apiKey ?? nonBlank(env[config.apiKeyEnv])
  if (key) return key
  throw new DshError(
    `no API key for the model: set the ${config.apiKeyEnv} environment variable`,
    LlmErrorCode.NoApiKey,
    { userFacing: true },
  )
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}
