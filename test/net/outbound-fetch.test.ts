// Outbound requests honour HTTP_PROXY / NO_PROXY: the model request of `dsh run` and the
// DeepSeek Search and Fetch calls go through a recording forward proxy on 127.0.0.1.

import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import type { Duplex } from 'node:stream'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type LoopbackModel, startLoopbackModel, WebToolsStandIn } from '../../src/llm/index.js'
import { McpConnection } from '../../src/mcp/index.js'
import { proxyFromEnv } from '../../src/net/index.js'
import {
  DeepSeekFetchProvider,
  DeepSeekSearchProvider,
  DeepSeekToolsClient,
} from '../../src/tools/web/index.js'
import { assertBuilt, makeWorld, runCli } from '../apps/cli/cli.js'
import { startMcpHttpServer } from '../support/mcp-http-server.js'
import { useTempDirs } from '../support/temp-dir.js'

const makeDir = useTempDirs('dsh-proxy-')

/**
 * A forward proxy: relays absolute-URL requests and CONNECT tunnels (undici tunnels
 * http:// targets too), recording each as `METHOD target`.
 */
async function startProxy(): Promise<{ url: string; seen: string[]; server: Server }> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const target = new URL(req.url ?? '')
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`)
    const [host, port] = (req.url ?? '').split(':')
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server }
}

/** What the proxy saw for a request to `baseUrl`: a tunnel to its host, or the absolute URL. */
function via(baseUrl: string, method: string, path: string): string[] {
  return [`CONNECT ${new URL(baseUrl).host}`, `${method} ${baseUrl}${path}`]
}

let proxy: Awaited<ReturnType<typeof startProxy>>
const servers: LoopbackModel[] = []
const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY }

beforeAll(async () => {
  assertBuilt()
  proxy = await startProxy()
})
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  proxy.seen.length = 0
})
afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  proxy.server.closeAllConnections()
  await new Promise((resolve) => proxy.server.close(resolve))
})

describe('outbound requests through a proxy', () => {
  it('reads the proxy from HTTPS_PROXY / HTTP_PROXY, blank counting as unset', () => {
    expect(proxyFromEnv({ HTTPS_PROXY: ' ', HTTP_PROXY: 'http://p:3128' })).toBe('http://p:3128')
    expect(proxyFromEnv({})).toBeUndefined()
  })

  it('dsh run sends its model request through HTTP_PROXY, and straight to a NO_PROXY host', async () => {
    const model = await startLoopbackModel([{ text: 'Via the proxy.' }, { text: 'Direct.' }], {
      strict: true,
    })
    servers.push(model)
    const w = makeWorld(makeDir(), model.baseUrl)
    const proxied = await runCli(['run', 'hi'], { env: { ...w.env, HTTP_PROXY: proxy.url }, cwd: w.project })
    expect(proxied.stdout).toBe('Via the proxy.\n')
    expect(proxy.seen).toHaveLength(1)
    expect(via(model.baseUrl, 'POST', '/chat/completions')).toContain(proxy.seen[0])
    const direct = await runCli(['run', 'hi'], {
      env: { ...w.env, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      cwd: w.project,
    })
    expect(direct.stdout).toBe('Direct.\n')
    expect(proxy.seen).toHaveLength(1)
  })

  it('DeepSeek Search and Fetch calls go through the proxy too', async () => {
    const stand = new WebToolsStandIn({
      apiKey: 'k',
      documents: [{ title: 'A page', url: 'https://example.org/a', summary: 'About a.' }],
      pages: { 'https://example.org/a': { title: 'A', content: '# A' } },
    })
    const server = await startLoopbackModel([], { webTools: stand })
    servers.push(server)
    process.env.HTTP_PROXY = proxy.url
    delete process.env.NO_PROXY
    const client = new DeepSeekToolsClient({
      baseUrl: server.baseUrl,
      apiKey: () => 'k',
      apiKeyEnv: 'DEEPSEEK_API_KEY',
    })
    const signal = new AbortController().signal
    const found = await new DeepSeekSearchProvider(client, 0).search({ query: 'a', signal })
    expect(found.hits).toHaveLength(1)
    const page = await new DeepSeekFetchProvider(client, 0).fetch({ url: 'https://example.org/a', signal })
    expect(page.markdown).toContain('# A')
    expect(proxy.seen.length).toBeGreaterThan(0)
    const allowed = [
      ...via(server.baseUrl, 'POST', '/v1/tools/search'),
      ...via(server.baseUrl, 'POST', '/v1/tools/fetch'),
    ]
    for (const seen of proxy.seen) expect(allowed).toContain(seen)
  })

  it('MCP servers over Streamable HTTP and SSE connect through the proxy the environment names', async () => {
    const env = { HTTP_PROXY: proxy.url }
    // A server per transport: a tunnel kept alive for one origin is not a new proxy request.
    for (const [name, type, path] of [
      ['web', 'http', '/mcp'],
      ['legacy', 'sse', '/sse'],
    ] as const) {
      const http = await startMcpHttpServer()
      try {
        const config = { type, url: `${http.origin}${path}` }
        const connection = new McpConnection({
          name,
          config: { ...config, headers: {} } as never,
          source: { kind: 'user' },
          home: makeDir(),
          cwd: makeDir(),
          env,
        })
        const before = proxy.seen.length
        try {
          expect(await connection.ready(20_000)).toBe(true)
          expect(connection.tools.length).toBeGreaterThan(0)
          // Each transport's requests reached the server through the proxy (a tunnel or an absolute URL).
          const host = new URL(http.origin).host
          expect(proxy.seen.slice(before).some((seen) => seen.includes(host))).toBe(true)
        } finally {
          await connection.close()
        }
      } finally {
        await http.close()
      }
    }
  })
})
