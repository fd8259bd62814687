// DeepSeek's model ids as the Models & Pricing page lists them (read 2026-12-02).

/** The model the pricing page tells clients to use (DeepSeek-V4.1-Flash). */
export const DEEPSEEK_DEFAULT_MODEL = 'deepseek-flash'

/**
 * Ids the API accepts today. `deepseek-v4-flash` and `deepseek-v4-flash-vision-exp` are
 * legacy names served by V4.1 Flash (Vision guide, read 2026-12-05).
 */
export const DEEPSEEK_MODELS = [
  'deepseek-flash',
  'deepseek-v4-pro',
  'deepseek-v4-flash',
  'deepseek-v4-flash-vision-exp',
] as const

/**
 * The models that take image input. The Models & Pricing page marks Vision for
 * `deepseek-flash` only ("Not supported" for `deepseek-v4-pro`); the Vision guide still
 * accepts the legacy `deepseek-v4-flash-vision-exp` (both read 2026-12-05). The legacy
 * `deepseek-v4-flash` is not documented as taking images, so dsh does not send it any.
 */
export const DEEPSEEK_VISION_MODELS: readonly string[] = ['deepseek-flash', 'deepseek-v4-flash-vision-exp']

/** Ids DeepSeek retired on 2026-07-24; requests naming them are refused ("Model Not Exist"). */
export const RETIRED_DEEPSEEK_MODELS = ['deepseek-chat', 'deepseek-reasoner'] as const

/** Context window and output limit of every current model, in tokens ("1M", "384K"). */
export const DEEPSEEK_CONTEXT_TOKENS = 1_000_000
export const DEEPSEEK_MAX_OUTPUT_TOKENS = 384_000

/**
 * Each accepted model's context window and output limit in tokens, from the Models &
 * Pricing page (https://api-docs.deepseek.com/quick_start/pricing, read 2026-12-04): every
 * current model has a 1M window and outputs at most 384K. "1M" is taken as 1,000,000, the
 * lower reading, so a request sized to it never exceeds the real window.
 */
export const DEEPSEEK_MODEL_LIMITS: Readonly<
  Record<string, { contextWindow: number; maxOutputTokens: number; images: boolean }>
> = Object.fromEntries(
  DEEPSEEK_MODELS.map((id) => [
    id,
    {
      contextWindow: DEEPSEEK_CONTEXT_TOKENS,
      maxOutputTokens: DEEPSEEK_MAX_OUTPUT_TOKENS,
      images: DEEPSEEK_VISION_MODELS.includes(id),
    },
  ]),
)

/**
 * Whether `model` takes images: true or false for the models in the table, undefined for
 * any other id (another OpenAI-compatible endpoint decides for itself).
 */
export function modelTakesImages(model: string): boolean | undefined {
  return DEEPSEEK_MODEL_LIMITS[model]?.images
}
