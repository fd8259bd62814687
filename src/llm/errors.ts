// Error codes of the model seam.

export const LlmErrorCode = {
  NoApiKey: 'LLM_NO_API_KEY',
  Http: 'LLM_HTTP',
  Network: 'LLM_NETWORK',
  Protocol: 'LLM_PROTOCOL',
  /** The stream went past model.streamMaxDurationMs or model.streamMaxBytes (failure class `runaway`). */
  StreamBound: 'LLM_STREAM_BOUND',
  Aborted: 'LLM_ABORTED',
  ScriptExhausted: 'LLM_SCRIPT_EXHAUSTED',
  BadEffort: 'LLM_BAD_EFFORT',
  BadBaseUrl: 'LLM_BAD_BASE_URL',
} as const
