// DeepSeek's Search and Fetch APIs on the wire (API reference and the Search & Fetch guide,
// api-docs.deepseek.com, read 2026-12-02): `POST /v1/tools/search` and `POST /v1/tools/fetch`
// on the chat API's host, the same Bearer key, JSON in and out.

import * as z from 'zod'
import { lazySchema } from '../../core/lazy-schema.js'

export const SEARCH_PATH = '/v1/tools/search'
export const FETCH_PATH = '/v1/tools/fetch'

/** Documented limits. */
export const MAX_QUERY_CHARS = 128
export const MAX_SEARCH_COUNT = 50
export const DEFAULT_SEARCH_COUNT = 10
export const MAX_FETCH_URL_CHARS = 8192

/** $0.75 per 1,000 successful requests (Models & Pricing, read 2026-12-02). */
export const DEFAULT_DEEPSEEK_SEARCH_PRICE_USD = 0.00075
export const DEFAULT_DEEPSEEK_FETCH_PRICE_USD = 0.00075

export interface WireSearchRequest {
  query: string
  count?: number
  ori_question?: string | null
  localization?: string
  need_content?: boolean
}

export const wireSearchResultSchema = lazySchema(() =>
  z.object({
    rerank_score: z.number(),
    title: z.string(),
    url: z.string(),
    snippet: z.string(),
    summary: z.string(),
    content: z.string(),
    site_name: z.string(),
    site_icon: z.string(),
    date: z.string(),
    authority: z.number(),
  }),
)
export type WireSearchResult = z.infer<ReturnType<typeof wireSearchResultSchema>>

/** Read leniently (a field the API drops later must not break search); the stand-in sends all. */
export const wireSearchResponseSchema = lazySchema(() =>
  z.object({
    results: z.array(wireSearchResultSchema().partial().extend({ title: z.string(), url: z.string() })),
  }),
)

export interface WireFetchRequest {
  url: string
}

export const wireFetchResponseSchema = lazySchema(() => z.object({ title: z.string(), content: z.string() }))
export type WireFetchResponse = z.infer<ReturnType<typeof wireFetchResponseSchema>>

/** The service root for the tool endpoints: the model's base URL without a trailing `/v1`. */
export function toolsRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
}

/** Length in Unicode characters (code points), as the API counts. */
export function unicodeLength(text: string): number {
  let count = 0
  for (const _ of text) count += 1
  return count
}
