// A POST whose answer streams (the model request): over node:http / node:https when no
// proxy is set, because the first `fetch` of a process loads Node's bundled undici and its
// WebAssembly HTTP parser, ~40 ms of CPU before a cold `dsh run` can send anything
// (bench/cli.bench.ts). With a proxy it is outboundFetch, whose agent honours it.

import type { IncomingMessage } from 'node:http'
import { outboundFetch } from './outbound-fetch.js'
import { proxyFromEnv } from './proxy-settings.js'

/** What a caller reads of the answer: the part of fetch's Response the model adapter uses. */
export interface PostResponse {
  readonly ok: boolean
  readonly status: number
  readonly statusText: string
  readonly headers: { get(name: string): string | null }
  /** The body as it arrives: fetch's web stream, or the Node stream of node:http (no conversion). */
  readonly body: AsyncIterable<Uint8Array> | null
  text(): Promise<string>
}

export interface PostRequest {
  headers: Record<string, string>
  body: string
  signal: AbortSignal
}

/**
 * Sends `request` to `url` and resolves once the status and headers arrived; the body
 * streams. Rejects like fetch: with the signal's reason when aborted, else a TypeError
 * `fetch failed` whose cause is the socket error (ECONNREFUSED, ENOTFOUND, ...).
 * Redirects are not followed (a model endpoint that redirects answers with its 3xx).
 */
export async function outboundPost(
  url: string,
  request: PostRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PostResponse> {
  if (proxyFromEnv(env) !== undefined) {
    const fetch = await outboundFetch(env)
    return fetch(url, { method: 'POST', ...request })
  }
  let target: URL
  try {
    target = new URL(url)
  } catch (error) {
    throw new TypeError(`Failed to parse URL from ${url}`, { cause: error })
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new TypeError('fetch failed', { cause: new Error(`unknown scheme ${target.protocol}`) })
  }
  const { request: send } =
    target.protocol === 'https:' ? await import('node:https') : await import('node:http')
  request.signal.throwIfAborted()
  return new Promise<PostResponse>((resolve, reject) => {
    let arrived: IncomingMessage | undefined
    const outgoing = send(
      target,
      {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
      },
      (incoming) => {
        arrived = incoming
        resolve(answer(incoming))
      },
    )
    // The signal ends the request and its answer, unless the answer has all arrived: its
    // connection may be back in the agent's pool then, and Node's own `signal` option would
    // destroy it there, with an error no one listens for (it crashed the process).
    const onAbort = () => {
      if (arrived?.complete) return
      outgoing.destroy(
        Object.assign(new Error('This operation was aborted', { cause: request.signal.reason }), {
          name: 'AbortError',
          code: 'ABORT_ERR',
        }),
      )
    }
    request.signal.addEventListener('abort', onAbort, { once: true })
    outgoing.once('close', () => request.signal.removeEventListener('abort', onAbort))
    outgoing.on('error', (error) => {
      // After the answer started, its body stream reports the failure instead.
      reject(request.signal.aborted ? request.signal.reason : new TypeError('fetch failed', { cause: error }))
    })
    outgoing.end(request.body)
  })
}

function answer(incoming: IncomingMessage): PostResponse {
  const status = incoming.statusCode ?? 0
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: incoming.statusMessage ?? '',
    headers: {
      get(name) {
        const value = incoming.headers[name.toLowerCase()]
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
      },
    },
    body: releasingBody(incoming),
    async text() {
      const chunks: Buffer[] = []
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
    },
  }
}

/** How long an answer read to its `[DONE]` may take to end before its connection is dropped. */
export const ANSWER_END_GRACE_MS = 2000

/**
 * The answer's body as the Node stream gives it (Readable.toWeb would load Node's web
 * streams, several milliseconds of a cold start before the first answer could be read).
 * A reader that stops early — the adapter stops at the `[DONE]` event, usually just before
 * the answer's last bytes — does not destroy it: it is read to its end in the background, so
 * the keep-alive connection serves the next request instead of a new TCP (and TLS) handshake
 * per model step. One that has not ended within ANSWER_END_GRACE_MS is destroyed.
 */
function releasingBody(incoming: IncomingMessage): AsyncIterable<Uint8Array> {
  // A reader learns of a failure from the iteration; one that comes after the reader left
  // (the adapter aborts an answer it stopped reading early) concerns nobody, and without a
  // listener Node would throw it at the process.
  incoming.on('error', () => {})
  return {
    async *[Symbol.asyncIterator]() {
      let ended = false
      try {
        for await (const piece of incoming.iterator({ destroyOnReturn: false })) yield piece as Buffer
        ended = true
      } finally {
        if (!ended && !incoming.destroyed) finishInBackground(incoming)
      }
    },
  }
}

function finishInBackground(incoming: IncomingMessage): void {
  const timer = setTimeout(() => incoming.destroy(), ANSWER_END_GRACE_MS)
  incoming.once('close', () => clearTimeout(timer))
  incoming.resume()
}
