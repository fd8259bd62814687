// Public surface of the model seam: the adapter contract, the OpenAI-compatible adapter,
// the scripted adapter and the loopback model server.

import type { LlmAdapter } from './adapter.js'
import type { LlmRetryInfo } from './openai/openai-adapter.js'

export { backoffDelayMs, parseRetryAfterMs } from '../failures/index.js'
export type { ModelChoice, ModelRequest, ModelStreamChunk } from './adapter.js'
export { LlmAdapter } from './adapter.js'
export type { Effort } from './deepseek/effort.js'
export {
  DEFAULT_EFFORT,
  EFFORTS,
  effortFields,
  isEffort,
  parseEffort,
  thinkingEnabled,
} from './deepseek/effort.js'
export {
  DEEPSEEK_CONTEXT_TOKENS,
  DEEPSEEK_DEFAULT_MODEL,
  DEEPSEEK_MAX_OUTPUT_TOKENS,
  DEEPSEEK_MODELS,
  DEEPSEEK_VISION_MODELS,
  modelTakesImages,
  RETIRED_DEEPSEEK_MODELS,
} from './deepseek/models.js'
export type { DeepSeekFault, StrictOptions, StrictRefusal } from './deepseek/strict.js'
export {
  CACHE_UNIT_TOKENS,
  DEEPSEEK_FAULTS,
  DeepSeekRules,
  MODEL_NOT_EXIST_MESSAGE,
  PASSBACK_MESSAGE,
  promptText,
} from './deepseek/strict.js'
export type {
  StandInDocument,
  StandInRequest,
  WebToolsStandInOptions,
} from './deepseek/web-tools-stand-in.js'
export { WebToolsStandIn } from './deepseek/web-tools-stand-in.js'
export { LlmErrorCode } from './errors.js'
export { LlmHttpError } from './http-error.js'
export type { OpenAiCompatibleConfig, ResolvedOpenAiConfig } from './openai/config.js'
export {
  BASE_URL_ENV,
  DEFAULT_API_KEY_ENV,
  DEFAULT_BASE_URL,
  DEFAULT_INITIAL_BACKOFF_MS,
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_MODEL,
  DEFAULT_REQUEST_TIMEOUT_MS,
  resolveOpenAiConfig,
} from './openai/config.js'
export type { LlmRetryInfo } from './openai/openai-adapter.js'
export { OpenAiCompatibleAdapter } from './openai/openai-adapter.js'
export type { RequestDefaults, WireOptions } from './openai/request.js'
export { buildChatRequest, encodeChatRequest, toWireMessages } from './openai/request.js'
export { ChatStreamAssembler } from './openai/stream-assembler.js'
export type { WireChatChunk, WireChatRequest, WireMessage, WireTool } from './openai/wire-types.js'
export type { LoopbackModel, LoopbackModelOptions, ReceivedRequest } from './scripted/loopback-server.js'
export { startLoopbackModel } from './scripted/loopback-server.js'
export type {
  Script,
  ScriptFault,
  ScriptHttpFault,
  ScriptOutcome,
  ScriptReply,
  ScriptRequest,
  ScriptStep,
  ScriptToolCall,
} from './scripted/script.js'
export type { ScriptedAdapterConfig } from './scripted/scripted-adapter.js'
export { ScriptedAdapter } from './scripted/scripted-adapter.js'
export type { ChatMessage, ToolCallRequest, ToolSchema, Usage } from './types.js'

declare module 'cordis' {
  interface Context {
    llm: LlmAdapter
  }
  interface Events {
    /** The OpenAI-compatible adapter is about to wait `delayMs` and retry a failed attempt. */
    'llm/retry'(info: LlmRetryInfo): void
    /**
     * A model server has accepted a request and its answer streams now: the process mostly
     * waits from here. Work that must not delay a request but should be done before the
     * answer's tool calls run (the shell's cgroup probe) starts here.
     */
    'llm/answering'(): void
  }
}
