// outboundPost, the model request's transport without a proxy: node:http against real
// loopback servers. It must answer and fail the way the adapter expects of fetch.

import { createServer, globalAgent, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { readSseData } from '../../src/llm/openai/sse.js'
import { outboundPost } from '../../src/net/index.js'
import { ANSWER_END_GRACE_MS } from '../../src/net/outbound-post.js'
import { until } from '../support/until.js'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const post = (url: string, signal = new AbortController().signal) =>
  outboundPost(
    url,
    { headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' }, body: '{"a":"é"}', signal },
    {},
  )

describe('outboundPost', () => {
  it('sends method, headers and body, and streams the answer before it ends', async () => {
    let release: () => void = () => {}
    const seen: string[] = []
    const url = await serve((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        seen.push(
          `${req.method} ${req.url} ${req.headers['x-test']} ${req.headers['content-length']} ${body}`,
        )
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Set-Cookie': ['a=1', 'b=2'] })
        res.write('data: first\n\n')
        release = () => res.end('data: last\n\n')
      })
    })
    const response = await post(`${url}/v1/chat/completions`)
    expect(seen).toEqual(['POST /v1/chat/completions yes 10 {"a":"é"}'])
    expect([response.ok, response.status, response.headers.get('Content-Type')]).toEqual([
      true,
      200,
      'text/event-stream',
    ])
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2')
    expect(response.headers.get('retry-after')).toBeNull()
    const pieces = response.body![Symbol.asyncIterator]()
    const first = await pieces.next()
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n')
    release()
    let rest = ''
    for (let next = await pieces.next(); !next.done; next = await pieces.next()) {
      rest += new TextDecoder().decode(next.value)
    }
    expect(rest).toBe('data: last\n\n')
  })

  it('gives an error answer as status, status text, headers and text', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, 'Too Many Requests', { 'Retry-After': '3' })
      res.end('{"error":{"message":"slow down"}}')
    })
    const response = await post(url)
    expect([response.ok, response.status, response.statusText]).toEqual([false, 429, 'Too Many Requests'])
    expect(response.headers.get('retry-after')).toBe('3')
    expect(await response.text()).toBe('{"error":{"message":"slow down"}}')
  })

  it('fails like fetch: a refused connection is `fetch failed` with the socket error as cause', async () => {
    const url = await serve(() => {})
    await new Promise((resolve) => servers.pop()!.close(resolve))
    const error = (await post(url).catch((reason: unknown) => reason)) as TypeError & {
      cause?: { code?: string }
    }
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toBe('fetch failed')
    expect(error.cause?.code).toBe('ECONNREFUSED')
    const invalid = (await post('not a url').catch((reason: unknown) => reason)) as TypeError & {
      cause?: { code?: string }
    }
    expect(invalid.cause?.code).toBe('ERR_INVALID_URL')
  })

  it('rejects with the signal’s reason when aborted before or while waiting for the answer', async () => {
    const url = await serve(() => {
      // Never answers.
    })
    const early = new AbortController()
    early.abort(new Error('stopped early'))
    await expect(post(url, early.signal)).rejects.toThrow('stopped early')
    const late = new AbortController()
    const pending = post(url, late.signal)
    setTimeout(() => late.abort(new Error('stopped while waiting')), 50)
    await expect(pending).rejects.toThrow('stopped while waiting')
  })

  it('aborting while the body streams makes the body fail', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write('data: one\n\n')
    })
    const controller = new AbortController()
    const response = await post(url, controller.signal)
    const pieces = response.body![Symbol.asyncIterator]()
    await pieces.next()
    controller.abort()
    await expect(pieces.next()).rejects.toThrow()
  })

  it('reads an answer stopped at its [DONE] to the end, so the next request reuses the connection', async () => {
    let connections = 0
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write('data: one\n\ndata: [DONE]\n\n')
      // The end comes after [DONE], as from a real server: the reader has stopped by then.
      setImmediate(() => res.end())
    })
    servers.at(-1)!.on('connection', () => connections++)
    for (let request = 0; request < 3; request++) {
      const response = await post(url)
      for await (const data of readSseData(response.body!)) if (data === '[DONE]') break
      // Back in the agent's pool once its end arrived (in a turn: while the tools run).
      await until(
        () => Object.values(globalAgent.freeSockets).flat().length === 1,
        10_000,
        'a free connection',
      )
    }
    expect(connections).toBe(1)
  })

  it('drops the connection of an answer that does not end after the reader stopped', async () => {
    let closed = false
    const url = await serve((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write('data: [DONE]\n\n')
      req.socket.on('close', () => {
        closed = true
      })
    })
    const response = await post(url)
    const started = performance.now()
    for await (const data of readSseData(response.body!)) if (data === '[DONE]') break
    await until(() => closed, ANSWER_END_GRACE_MS + 10_000, 'the dropped connection')
    expect(performance.now() - started).toBeGreaterThanOrEqual(ANSWER_END_GRACE_MS - 50)
  })

  it('an answer stopped early and then aborted after it all arrived leaves its connection to the next request', async () => {
    let connections = 0
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.end('data: {"bad":1}\n\ndata: [DONE]\n\n')
    })
    servers.at(-1)!.on('connection', () => connections++)
    for (let request = 0; request < 3; request++) {
      const controller = new AbortController()
      const response = await post(url, controller.signal)
      // The adapter's path on a malformed event: stop reading, then abort the request.
      for await (const data of readSseData(response.body!)) if (data !== '') break
      controller.abort()
      await until(
        () => Object.values(globalAgent.freeSockets).flat().length === 1,
        10_000,
        'a free connection',
      )
    }
    expect(connections).toBe(1)
  })
})
