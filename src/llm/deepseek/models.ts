// DeepSeek's model ids as the Models & Pricing page lists them (read 2026-12-02).

/** The model the pricing page tells clients to use (DeepSeek-V4.1-Flash). */
export const DEEPSEEK_DEFAULT_MODEL = 'deepseek-flash'

/** Ids the API accepts today. `deepseek-v4-flash` is a legacy name served by V4.1 Flash. */
export const DEEPSEEK_MODELS = ['deepseek-flash', 'deepseek-v4-pro', 'deepseek-v4-flash'] as const

/** Ids DeepSeek retired on 2026-07-24; requests naming them are refused ("Model Not Exist"). */
export const RETIRED_DEEPSEEK_MODELS = ['deepseek-chat', 'deepseek-reasoner'] as const

/** Context window and output limit of every current model, in tokens. */
export const DEEPSEEK_CONTEXT_TOKENS = 1_000_000
export const DEEPSEEK_MAX_OUTPUT_TOKENS = 384_000
