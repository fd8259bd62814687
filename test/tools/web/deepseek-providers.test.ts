// The DeepSeek Search and Fetch providers against the strict stand-in, over real HTTP.

import { describe, expect, it } from 'vitest'
import { WebToolsStandIn } from '../../../src/llm/index.js'
import {
  DeepSeekFetchProvider,
  DeepSeekSearchProvider,
  DeepSeekToolsClient,
  isWebError,
  type WebError,
} from '../../../src/tools/web/index.js'
import { useLoopbackModels } from '../../support/loopback-model.js'

const KEY = 'sk-stand-in'
const PRICE = 0.00075
const DOCS = [
  {
    title: 'Node.js 20 release notes',
    url: 'https://nodejs.org/en/blog/release/v20.0.0',
    summary: 'Node.js 20 ships a permission model.',
  },
  {
    title: 'Node streams guide',
    url: 'https://nodejs.org/api/stream.html',
    summary: 'How streams work in Node.',
  },
  {
    title: 'Deno vs Node',
    url: 'https://example.com/deno-node',
    summary: 'A comparison of Deno and Node runtimes.',
  },
]
const PAGES = {
  'https://nodejs.org/api/stream.html': {
    title: 'Stream | Node.js',
    content: '# Stream\n\nA stream is an abstract interface.',
  },
  'https://example.com/empty': { title: '', content: '' },
}

const startModel = useLoopbackModels()

async function standIn(options: { key?: string; maxRetries?: number } = {}) {
  const stand = new WebToolsStandIn({ documents: DOCS, pages: PAGES, apiKey: KEY })
  const server = await startModel([], { webTools: stand })
  const client = new DeepSeekToolsClient({
    baseUrl: server.baseUrl,
    apiKey: () => options.key ?? KEY,
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    maxRetries: options.maxRetries ?? 2,
    initialBackoffMs: 10,
  })
  return {
    stand,
    server,
    search: new DeepSeekSearchProvider(client, PRICE),
    fetch: new DeepSeekFetchProvider(client, PRICE),
  }
}

const signal = () => new AbortController().signal

async function failure(promise: Promise<unknown>): Promise<WebError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  if (!isWebError(error)) throw new Error(`expected a WebError, got ${String(error)}`)
  return error
}

describe('DeepSeek Search provider', () => {
  it('sends the documented body with filters as query operators and bills a search with results', async () => {
    const { stand, search } = await standIn()
    const result = await search.search({
      query: 'node',
      count: 2,
      domains: ['nodejs.org'],
      after: '2026-01-01',
      signal: signal(),
    })
    expect(stand.requests).toEqual([
      { endpoint: 'search', body: { query: 'node site:nodejs.org after:2026-01-01', count: 2 }, status: 200 },
    ])
    expect(result.hits.map((hit) => hit.url)).toEqual([DOCS[0]!.url, DOCS[1]!.url])
    expect(result.hits[0]).toMatchObject({
      title: DOCS[0]!.title,
      summary: DOCS[0]!.summary,
      siteName: 'nodejs.org',
    })
    expect(result.costUsd).toBe(PRICE)
    expect(stand.billed.search).toBe(1)
  })

  it('answers an empty result list for free', async () => {
    const { stand, search } = await standIn()
    const result = await search.search({ query: 'zebra', signal: signal() })
    expect(result).toEqual({ hits: [], costUsd: 0 })
    expect(stand.billed.search).toBe(0)
  })

  it('refuses a query over 128 characters before sending it', async () => {
    const { stand, search } = await standIn()
    const error = await failure(
      search.search({ query: 'ä'.repeat(120), domains: ['nodejs.org'], signal: signal() }),
    )
    expect(error.failureClass).toBe('invalid')
    expect(error.message).toContain('at most 128')
    expect(stand.requests).toEqual([])
  })

  it('waits out a 429 with Retry-After and then succeeds', async () => {
    const { stand, search } = await standIn()
    stand.failNext('search', 429, '0')
    const result = await search.search({ query: 'deno', signal: signal() })
    expect(result.hits).toHaveLength(1)
    expect(stand.requests.map((request) => request.status)).toEqual([429, 200])
    expect(stand.billed.search).toBe(1)
  })

  it('reports rate limit with Retry-After, auth and balance as classified errors', async () => {
    const { stand, search } = await standIn({ maxRetries: 0 })
    stand.failNext('search', 429, '12')
    const limited = await failure(search.search({ query: 'node', signal: signal() }))
    expect([limited.failureClass, limited.status, limited.retryAfterSeconds]).toEqual(['rate-limit', 429, 12])
    expect(limited.message).toContain('Rate Limit Reached')
    stand.failNext('search', 402)
    expect((await failure(search.search({ query: 'node', signal: signal() }))).failureClass).toBe('balance')

    const wrongKey = await standIn({ key: 'sk-wrong' })
    const auth = await failure(wrongKey.search.search({ query: 'node', signal: signal() }))
    expect(auth.failureClass).toBe('auth')
    expect(wrongKey.stand.requests).toHaveLength(1)
  })
})

describe('DeepSeek Fetch provider', () => {
  it('returns the page Markdown and bills a fetch with content', async () => {
    const { stand, fetch } = await standIn()
    const page = await fetch.fetch({ url: 'https://nodejs.org/api/stream.html', signal: signal() })
    expect(page).toEqual({
      url: 'https://nodejs.org/api/stream.html',
      title: 'Stream | Node.js',
      markdown: '# Stream\n\nA stream is an abstract interface.',
      truncated: false,
      costUsd: PRICE,
    })
    expect(stand.requests[0]!.body).toEqual({ url: 'https://nodejs.org/api/stream.html' })
    const empty = await fetch.fetch({ url: 'https://example.com/empty', signal: signal() })
    expect(empty.costUsd).toBe(0)
    expect(stand.billed.fetch).toBe(1)
  })

  it('classifies a page that cannot be fetched and refuses bad URLs locally', async () => {
    const { stand, fetch } = await standIn()
    const missing = await failure(fetch.fetch({ url: 'https://nodejs.org/missing', signal: signal() }))
    expect([missing.failureClass, missing.status]).toEqual(['not-found', 404])
    expect((await failure(fetch.fetch({ url: 'ftp://x.org/', signal: signal() }))).failureClass).toBe(
      'refused',
    )
    expect((await failure(fetch.fetch({ url: 'https://u:p@x.org/', signal: signal() }))).failureClass).toBe(
      'refused',
    )
    expect(stand.requests).toHaveLength(1)
    expect(stand.billed.fetch).toBe(0)
  })
})

describe('the stand-in itself', () => {
  it('refuses requests that break the documented rules with 422', async () => {
    const { server } = await standIn()
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as { error?: { message: string } } }
    }
    for (const body of [
      { query: '   ' },
      { query: 'x'.repeat(129) },
      { query: 'node', count: 0 },
      { query: 'node', count: 51 },
      { query: 'node', ori_question: '' },
      { query: 'node', extra: true },
    ])
      expect((await post('/v1/tools/search', body)).status).toBe(422)
    for (const body of [
      { url: 'file:///etc/passwd' },
      { url: 'https://a:b@x.org/' },
      { url: 'x'.repeat(8193) },
      {},
    ])
      expect((await post('/v1/tools/fetch', body)).status).toBe(422)
    expect(
      (await post('/v1/tools/search', { query: 'node', count: 50, ori_question: null, need_content: true }))
        .status,
    ).toBe(200)
  })
})
