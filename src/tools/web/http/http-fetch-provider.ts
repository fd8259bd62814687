// The plain-HTTP fetch provider: GET with manual redirects (each hop re-checked), an address
// guard on every direct connection, the environment's proxy (HTTPS_PROXY / HTTP_PROXY /
// NO_PROXY), a size cap on the decoded bytes, one deadline for the whole fetch, charset
// decoding and HTML-to-Markdown conversion.

import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { Dispatcher } from 'undici'
import { packageVersion } from '../../../core/version.js'
import { parseRetryAfterMs } from '../../../failures/index.js'
import { createOutboundDispatcher, loadUndici } from '../../../net/index.js'
import { classifySiteStatus, isWebError, WebError } from '../errors.js'
import { parseFetchUrl } from '../fetch-url.js'
import type { WebFetchProvider, WebFetchRequest, WebFetchResult } from '../types.js'
import { checkLiteralHost, guardedLookup, PrivateHostPolicy } from './address-guard.js'
import { bodyKind, mediaType } from './body-kind.js'

export const DEFAULT_FETCH_MAX_BYTES = 10 * 1024 * 1024
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000
export const DEFAULT_FETCH_MAX_REDIRECTS = 5

export interface HttpFetchOptions {
  /** Bytes of (decompressed) body read at most; the rest is cut. Default 10 MiB. */
  maxBytes?: number
  /** One deadline for the whole fetch, redirects and body included. Default 30 s. */
  timeoutMs?: number
  /** Default 5. */
  maxRedirects?: number
  /** Private/loopback hosts that may be fetched (`*`, `host` or `host:port`). Default none. */
  allowPrivateHosts?: readonly string[]
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read, at each fetch. Default process.env. */
  env?: NodeJS.ProcessEnv
}

/** One hop's answer: status, headers, the undecoded body, and the connection to let go of. */
interface SiteResponse {
  status: number
  headers: Dispatcher.ResponseData['headers']
  body: Readable
  /** Ends the hop: destroys the body and its dispatcher's connections. Idempotent. */
  release(): void
}

export class HttpFetchProvider implements WebFetchProvider {
  readonly name = 'http'
  private readonly maxBytes: number
  private readonly timeoutMs: number
  private readonly maxRedirects: number
  private readonly policy: PrivateHostPolicy
  private readonly env: NodeJS.ProcessEnv | undefined
  private readonly userAgent = `dsh/${packageVersion()} (web_fetch)`

  constructor(options: HttpFetchOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS
    this.maxRedirects = options.maxRedirects ?? DEFAULT_FETCH_MAX_REDIRECTS
    this.policy = new PrivateHostPolicy(options.allowPrivateHosts ?? [])
    this.env = options.env
  }

  async fetch(request: WebFetchRequest): Promise<WebFetchResult> {
    const deadline = AbortSignal.timeout(this.timeoutMs)
    const signal = AbortSignal.any([request.signal, deadline])
    let response: SiteResponse | undefined
    try {
      const followed = await this.follow(parseFetchUrl(request.url), signal, request.checkRedirect)
      const url = followed.url
      response = followed.response
      const contentType = header(response.headers, 'content-type')
      const type = mediaType(contentType)
      const { body, truncated } = await readCapped(response, this.maxBytes, signal)
      const kind = bodyKind(type, body)
      if (kind === 'unsupported')
        throw new WebError('unsupported', `${url.href} is ${type || 'of unknown type'}, not a text page`)
      // Loaded on first use: the parser and the charset tables are not needed to start.
      const [{ decodeBody }, { convertHtml }] = await Promise.all([
        import('./charset.js'),
        import('./html-to-markdown.js'),
      ])
      const text = decodeBody(body, contentType)
      const page = kind === 'html' ? await convertHtml(text, url.href, signal) : { title: '', markdown: text }
      return { url: url.href, title: page.title, markdown: page.markdown, truncated, costUsd: 0 }
    } catch (error) {
      if (isWebError(error)) throw error
      if (deadline.aborted)
        throw new WebError('timeout', `fetching ${request.url} took longer than ${this.timeoutMs} ms`)
      if (request.signal.aborted) throw new WebError('transport', 'the fetch was cancelled', { cause: error })
      throw new WebError('transport', `fetching ${request.url} failed: ${transportMessage(error)}`, {
        cause: error,
      })
    } finally {
      response?.release()
    }
  }

  /** Requests `url`, following redirects; answers the final URL and its 2xx response. */
  private async follow(
    start: URL,
    signal: AbortSignal,
    checkRedirect: WebFetchRequest['checkRedirect'],
  ): Promise<{ url: URL; response: SiteResponse }> {
    let url = start
    for (let hop = 0; ; hop++) {
      checkLiteralHost(url, this.policy)
      const response = await this.get(url, signal)
      const status = response.status
      const location = header(response.headers, 'location')
      if (status >= 300 && status < 400 && location !== undefined) {
        response.release()
        if (hop >= this.maxRedirects)
          throw new WebError('invalid', `${start.href}: more than ${this.maxRedirects} redirects`)
        url = parseFetchUrl(new URL(location, url).href)
        const refusal = checkRedirect?.(url.href)
        if (refusal !== undefined) throw new WebError('invalid', refusal)
        continue
      }
      if (status < 200 || status >= 300) {
        response.release()
        const retryAfterMs = parseRetryAfterMs(header(response.headers, 'retry-after'))
        const retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000)
        throw new WebError(classifySiteStatus(status), `${url.href} answered HTTP ${status}`, {
          status,
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
        })
      }
      return { url, response }
    }
  }

  /**
   * One GET on its own dispatcher: direct connections run the address guard for this URL's
   * policy; through a proxy the proxy resolves the name, so only the literal host is judged.
   */
  private async get(url: URL, signal: AbortSignal): Promise<SiteResponse> {
    const [{ request }, dispatcher] = await Promise.all([
      loadUndici(),
      createOutboundDispatcher(this.env ?? process.env, { lookup: guardedLookup(url, this.policy) }),
    ])
    // Connection errors after the hop ended are of no interest: the fetch has its answer.
    const letGo = () => void dispatcher.destroy().catch(() => {})
    try {
      const answer = await request(url, {
        method: 'GET',
        signal,
        dispatcher,
        headers: {
          'user-agent': this.userAgent,
          accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      })
      // Destroying an unread body emits an abort error; a reader still gets its own errors.
      answer.body.on('error', () => {})
      let released = false
      return {
        status: answer.statusCode,
        headers: answer.headers,
        body: answer.body,
        release() {
          if (released) return
          released = true
          answer.body.destroy()
          letGo()
        },
      }
    } catch (error) {
      letGo()
      throw error
    }
  }
}

/** A response header as one string (the first, when it came more than once). */
function header(headers: SiteResponse['headers'], name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function decompressed(response: SiteResponse): NodeJS.ReadableStream {
  const encoding = (header(response.headers, 'content-encoding') ?? '').trim().toLowerCase()
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.body.pipe(createGunzip())
  if (encoding === 'deflate') return response.body.pipe(createInflate())
  if (encoding === 'br') return response.body.pipe(createBrotliDecompress())
  return response.body
}

/** Reads at most `maxBytes`; past that the stream is destroyed and the body marked cut. */
async function readCapped(
  response: SiteResponse,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decompressed(response)
  const parts: Buffer[] = []
  let size = 0
  let truncated = false
  const onAbort = () => (stream as unknown as { destroy(error?: Error): void }).destroy(new Error('aborted'))
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = maxBytes - size
      if (chunk.length >= room) {
        parts.push(chunk.subarray(0, room))
        size += room
        truncated = chunk.length > room
        if (truncated) break
        continue
      }
      parts.push(chunk)
      size += chunk.length
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    // Stop reading a body that is cut (or abandoned); the socket is not reused.
    ;(stream as unknown as { destroy(): void }).destroy()
    response.release()
  }
  if (signal.aborted) throw signal.reason
  return { body: Buffer.concat(parts, size), truncated }
}

function transportMessage(error: unknown): string {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  return code && !message.includes(code) ? `${code}: ${message}` : message
}
