// DeepSeek's Search and Fetch APIs as web providers. Billing follows the guide: a search is
// billed when it returns results, a fetch when it returns content; errors are free.

import {
  DEFAULT_SEARCH_COUNT,
  FETCH_PATH,
  MAX_FETCH_URL_CHARS,
  MAX_QUERY_CHARS,
  MAX_SEARCH_COUNT,
  SEARCH_PATH,
  unicodeLength,
  type WireSearchRequest,
  wireFetchResponseSchema,
  wireSearchResponseSchema,
} from '../../../llm/deepseek/web-tools-wire.js'
import { WebError } from '../errors.js'
import { parseFetchUrl } from '../fetch-url.js'
import type {
  WebFetchProvider,
  WebFetchRequest,
  WebFetchResult,
  WebSearchProvider,
  WebSearchRequest,
  WebSearchResult,
} from '../types.js'
import type { DeepSeekToolsClient } from './client.js'

export class DeepSeekSearchProvider implements WebSearchProvider {
  readonly name = 'deepseek'

  constructor(
    private readonly client: DeepSeekToolsClient,
    private readonly priceUsd: number,
  ) {}

  async search(request: WebSearchRequest): Promise<WebSearchResult> {
    const query = searchQuery(request)
    const length = unicodeLength(query)
    if (length > MAX_QUERY_CHARS)
      throw new WebError(
        'invalid',
        `the query with its filters is ${length} characters; DeepSeek Search takes at most ${MAX_QUERY_CHARS}: shorten it`,
      )
    const body: WireSearchRequest = {
      query,
      count: Math.min(MAX_SEARCH_COUNT, Math.max(1, request.count ?? DEFAULT_SEARCH_COUNT)),
    }
    const raw = await this.client.post(SEARCH_PATH, body, request.signal, 'DeepSeek Search')
    const parsed = wireSearchResponseSchema().safeParse(raw)
    if (!parsed.success)
      throw new WebError('server', 'DeepSeek Search: the answer has no valid `results` list')
    const hits = parsed.data.results.map((result) => ({
      title: result.title,
      url: result.url,
      summary: result.summary || result.snippet || '',
      ...(result.site_name ? { siteName: result.site_name } : {}),
      ...(result.date ? { date: result.date } : {}),
      ...(result.rerank_score !== undefined ? { score: result.rerank_score } : {}),
    }))
    return { hits, costUsd: hits.length > 0 ? this.priceUsd : 0 }
  }
}

export class DeepSeekFetchProvider implements WebFetchProvider {
  readonly name = 'deepseek'

  constructor(
    private readonly client: DeepSeekToolsClient,
    private readonly priceUsd: number,
  ) {}

  async fetch(request: WebFetchRequest): Promise<WebFetchResult> {
    checkFetchUrl(request.url)
    const raw = await this.client.post(FETCH_PATH, { url: request.url }, request.signal, 'DeepSeek Fetch')
    const parsed = wireFetchResponseSchema().safeParse(raw)
    if (!parsed.success)
      throw new WebError('server', 'DeepSeek Fetch: the answer lacks `title` and `content`')
    const { title, content } = parsed.data
    return {
      url: request.url,
      title,
      markdown: content,
      truncated: false,
      costUsd: content !== '' ? this.priceUsd : 0,
    }
  }
}

/** The query as sent: the model's words plus the API's operators for the filters. */
export function searchQuery(request: WebSearchRequest): string {
  const parts = [request.query.trim()]
  for (const domain of request.domains ?? []) parts.push(`site:${domain}`)
  for (const domain of request.excludeDomains ?? []) parts.push(`-site:${domain}`)
  if (request.languages?.length) parts.push(`lang:${request.languages.join(',')}`)
  if (request.after) parts.push(`after:${request.after}`)
  if (request.before) parts.push(`before:${request.before}`)
  return parts.join(' ')
}

/** The Fetch API's documented URL rules, checked before spending a request. */
function checkFetchUrl(raw: string): void {
  if (raw.length > MAX_FETCH_URL_CHARS)
    throw new WebError('invalid', `the URL is longer than ${MAX_FETCH_URL_CHARS} characters`)
  parseFetchUrl(raw)
}
