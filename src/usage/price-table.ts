// The one price table: per model, per 1M tokens, the cache-hit input, cache-miss input and
// output rates, optionally split into peak and off-peak hours. Defaults are DeepSeek's
// Models & Pricing page as read on 2026-12-02 (USD); they are estimates, not a bill.

export interface Rates {
  /** Per 1M input tokens served from the prompt cache. */
  cacheHit: number
  /** Per 1M input tokens not in the cache. */
  cacheMiss: number
  /** Per 1M output tokens (reasoning included). */
  output: number
}

/** One rate for all hours, or peak and off-peak rates. */
export type ModelPrices = Rates | { peak: Rates; offPeak: Rates }

/** When the peak rates apply: weekday hours in a fixed UTC offset. */
export interface PeakHours {
  /** The offset of the clock the hours are given in, in minutes (Beijing: +480). */
  utcOffsetMinutes: number
  /** Days of the week with peak hours, 0 = Sunday. */
  weekdays: number[]
  /** `[start, end)` in hours of that clock, e.g. [9, 12]. */
  ranges: [number, number][]
}

export interface PriceTable {
  /** ISO 4217 code (or another unit) of every amount. */
  currency: string
  models: Record<string, ModelPrices>
  peakHours: PeakHours
}

const FLASH: ModelPrices = {
  offPeak: { cacheHit: 0.003, cacheMiss: 0.15, output: 0.6 },
  peak: { cacheHit: 0.006, cacheMiss: 0.3, output: 1.2 },
}
const PRO: ModelPrices = {
  offPeak: { cacheHit: 0.022, cacheMiss: 0.66, output: 1.98 },
  peak: { cacheHit: 0.044, cacheMiss: 1.32, output: 3.96 },
}

/**
 * DeepSeek's prices (USD per 1M tokens, read 2026-12-02). Peak: Beijing time Monday to
 * Friday 09:00–12:00 and 14:00–18:00; Chinese public holidays are off-peak, which this
 * table cannot know, so a holiday is estimated at the peak rate.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  currency: 'USD',
  // The legacy vision name is billed at Flash prices (Models & Pricing, read 2026-12-05).
  models: {
    'deepseek-flash': FLASH,
    'deepseek-v4-flash': FLASH,
    'deepseek-v4-flash-vision-exp': FLASH,
    'deepseek-v4-pro': PRO,
  },
  peakHours: {
    utcOffsetMinutes: 480,
    weekdays: [1, 2, 3, 4, 5],
    ranges: [
      [9, 12],
      [14, 18],
    ],
  },
}

/** The configured table over the defaults: models merge (a configured model replaces its default). */
export function resolvePriceTable(config: Partial<PriceTable> | undefined): PriceTable {
  if (!config) return DEFAULT_PRICE_TABLE
  const currencyChanged = config.currency !== undefined && config.currency !== DEFAULT_PRICE_TABLE.currency
  return {
    currency: config.currency ?? DEFAULT_PRICE_TABLE.currency,
    // Default rates are in USD: another currency starts from an empty table.
    models: { ...(currencyChanged ? {} : DEFAULT_PRICE_TABLE.models), ...config.models },
    peakHours: config.peakHours ?? DEFAULT_PRICE_TABLE.peakHours,
  }
}

/** True when `time` (epoch ms) falls in the table's peak hours. */
export function isPeak(hours: PeakHours, time: number): boolean {
  const local = new Date(time + hours.utcOffsetMinutes * 60_000)
  if (!hours.weekdays.includes(local.getUTCDay())) return false
  const hour = local.getUTCHours() + local.getUTCMinutes() / 60
  return hours.ranges.some(([start, end]) => hour >= start && hour < end)
}

/** The rates for `model` at `time`, or undefined when the table has no price for it. */
export function ratesAt(table: PriceTable, model: string, time: number): Rates | undefined {
  const prices = table.models[model]
  if (!prices) return undefined
  if ('cacheHit' in prices) return prices
  return isPeak(table.peakHours, time) ? prices.peak : prices.offPeak
}
