// The strict stand-in for DeepSeek's Search and Fetch APIs, served by the loopback model
// (`startLoopbackModel(script, { webTools })`). It enforces the documented request rules
// (API reference and Search & Fetch guide, read 2026-12-02), answers in the documented
// shapes, counts what DeepSeek would bill, and plays 429s on demand.

import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  DEFAULT_SEARCH_COUNT,
  FETCH_PATH,
  MAX_FETCH_URL_CHARS,
  MAX_QUERY_CHARS,
  MAX_SEARCH_COUNT,
  SEARCH_PATH,
  unicodeLength,
  type WireFetchResponse,
  type WireSearchResult,
} from './web-tools-wire.js'

/** A document the stand-in's search engine knows. */
export interface StandInDocument {
  title: string
  url: string
  summary: string
  content?: string
  date?: string
  siteName?: string
}

export interface WebToolsStandInOptions {
  /** The search corpus; a query matches documents containing any of its words. */
  documents?: StandInDocument[]
  /** Pages the fetch endpoint can read, by URL; any other URL cannot be fetched. */
  pages?: Record<string, { title: string; content: string }>
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string
}

export interface StandInRequest {
  endpoint: 'search' | 'fetch'
  body: unknown
  status: number
}

const FAULT_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_balance',
  404: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'server_error',
  503: 'server_overloaded',
}

export class WebToolsStandIn {
  /** Every request to a tool endpoint, with the status it got. */
  readonly requests: StandInRequest[] = []
  /** Requests DeepSeek would bill: searches with results, fetches with content. */
  readonly billed = { search: 0, fetch: 0 }
  private readonly faults: { endpoint: 'search' | 'fetch'; status: number; retryAfter?: string }[] = []

  constructor(private readonly options: WebToolsStandInOptions = {}) {}

  /** The next request to `endpoint` fails with `status` (429 carries `Retry-After`). */
  failNext(endpoint: 'search' | 'fetch', status: number, retryAfter?: string): void {
    this.faults.push({ endpoint, status, ...(retryAfter !== undefined ? { retryAfter } : {}) })
  }

  /** Serves a tool endpoint; false when the path is not one (the caller routes it). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const endpoint = path.endsWith(SEARCH_PATH) ? 'search' : path.endsWith(FETCH_PATH) ? 'fetch' : undefined
    if (!endpoint) return false
    await this.serve(endpoint, req, res)
    return true
  }

  private async serve(
    endpoint: 'search' | 'fetch',
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const raw = await readBody(req)
    let body: unknown
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ endpoint, body, status })
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
      res.end(JSON.stringify(payload))
    }
    const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
      answer(
        status,
        { error: { message, type: FAULT_TYPES[status] ?? 'server_error', param: null, code: null } },
        headers,
      )

    if (req.method !== 'POST') return fail(405, `method ${req.method} not allowed`)
    if (this.options.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.options.apiKey}`)
      return fail(401, 'Authentication Fails, Your api key is invalid')
    try {
      body = JSON.parse(raw)
    } catch {
      return fail(400, 'Invalid Format: the request body is not JSON')
    }
    const fault = this.faults.findIndex((entry) => entry.endpoint === endpoint)
    if (fault >= 0) {
      const [{ status, retryAfter }] = this.faults.splice(fault, 1) as [(typeof this.faults)[number]]
      const message =
        status === 429 ? 'Rate Limit Reached' : status === 402 ? 'Insufficient Balance' : 'Server Error'
      return fail(status, message, retryAfter !== undefined ? { 'Retry-After': retryAfter } : {})
    }
    const problem = endpoint === 'search' ? checkSearch(body) : checkFetch(body)
    if (problem) return fail(422, `Invalid Parameters: ${problem}`)
    if (endpoint === 'search') {
      const results = this.search(body as { query: string; count?: number; need_content?: boolean })
      if (results.length > 0) this.billed.search += 1
      return answer(200, { results })
    }
    const page = this.options.pages?.[(body as { url: string }).url]
    if (!page) return fail(404, 'the page could not be fetched')
    if (page.content !== '') this.billed.fetch += 1
    return answer(200, { title: page.title, content: page.content } satisfies WireFetchResponse)
  }

  private search(body: { query: string; count?: number; need_content?: boolean }): WireSearchResult[] {
    const { words, sites, excluded } = parseQuery(body.query)
    const matches = (this.options.documents ?? []).filter((doc) => {
      const host = new URL(doc.url).hostname
      if (sites.length > 0 && !sites.some((site) => host === site || host.endsWith(`.${site}`))) return false
      if (excluded.some((site) => host === site || host.endsWith(`.${site}`))) return false
      const text = `${doc.title} ${doc.summary}`.toLowerCase()
      return words.some((word) => text.includes(word))
    })
    return matches.slice(0, body.count ?? DEFAULT_SEARCH_COUNT).map((doc, index) => ({
      rerank_score: Math.max(0, 2.8 - index * 0.2),
      title: doc.title,
      url: doc.url,
      snippet: doc.summary.slice(0, 200),
      summary: doc.summary,
      content: body.need_content ? (doc.content ?? '') : '',
      site_name: doc.siteName ?? new URL(doc.url).hostname,
      site_icon: `${new URL(doc.url).origin}/favicon.ico`,
      date: doc.date ?? '2026-11-01T00:00:00+00:00',
      authority: 2,
    }))
  }
}

const SEARCH_FIELDS = new Set(['query', 'count', 'ori_question', 'localization', 'need_content'])

/** The Search request rules from the API reference; a message for the first broken one. */
function checkSearch(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object'
  const unknown = Object.keys(body).find((key) => !SEARCH_FIELDS.has(key))
  if (unknown) return `unknown field ${unknown}`
  const { query, count, ori_question, localization, need_content } = body
  if (typeof query !== 'string' || query.trim() === '') return 'query must be a non-blank string'
  if (unicodeLength(query) > MAX_QUERY_CHARS) return `query must be at most ${MAX_QUERY_CHARS} characters`
  if (
    count !== undefined &&
    !(Number.isInteger(count) && (count as number) >= 1 && (count as number) <= MAX_SEARCH_COUNT)
  )
    return `count must be an integer from 1 to ${MAX_SEARCH_COUNT}`
  if (ori_question !== undefined && ori_question !== null) {
    if (
      typeof ori_question !== 'string' ||
      ori_question === '' ||
      unicodeLength(ori_question) > MAX_QUERY_CHARS
    )
      return `ori_question must be 1 to ${MAX_QUERY_CHARS} characters`
  }
  if (localization !== undefined && typeof localization !== 'string') return 'localization must be a string'
  if (need_content !== undefined && typeof need_content !== 'boolean') return 'need_content must be a boolean'
  return undefined
}

/** The Fetch request rules: an http(s) URL with a host, no user or password, ≤ 8192 characters. */
function checkFetch(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object'
  const unknown = Object.keys(body).find((key) => key !== 'url')
  if (unknown) return `unknown field ${unknown}`
  const { url } = body
  if (typeof url !== 'string' || url === '') return 'url must be a non-empty string'
  if (url.length > MAX_FETCH_URL_CHARS) return `url must be at most ${MAX_FETCH_URL_CHARS} characters`
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'url is not a valid URL'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'url must be http or https'
  if (!parsed.hostname) return 'url must have a host'
  if (parsed.username || parsed.password) return 'url must not carry a user name or password'
  return undefined
}

function parseQuery(query: string): { words: string[]; sites: string[]; excluded: string[] } {
  const words: string[] = []
  const sites: string[] = []
  const excluded: string[] = []
  for (const token of query.toLowerCase().split(/\s+/)) {
    if (token.startsWith('site:')) sites.push(token.slice(5))
    else if (token.startsWith('-site:')) excluded.push(token.slice(6))
    else if (/^(lang|after|before):/.test(token)) continue
    else if (token.replace(/"/g, '')) words.push(token.replace(/"/g, ''))
  }
  return { words, sites, excluded }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}
