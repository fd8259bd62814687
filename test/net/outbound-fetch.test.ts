// Outbound requests honour HTTP_PROXY / NO_PROXY: the model request of `dsh run`, its
// plain-HTTP web_fetch, the DeepSeek Search and Fetch calls and MCP servers over HTTP go
// through a recording forward proxy on 127.0.0.1.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebToolsStandIn } from '../../src/llm/index.js'
import { McpConnection } from '../../src/mcp/index.js'
import { proxyFromEnv } from '../../src/net/index.js'
import {
  DeepSeekFetchProvider,
  DeepSeekSearchProvider,
  DeepSeekToolsClient,
} from '../../src/tools/web/index.js'
import { assertBuilt, makeWorld, runCli } from '../apps/cli/cli.js'
import { type ForwardProxy, proxiedAs, startForwardProxy } from '../support/forward-proxy.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { startMcpHttpServer } from '../support/mcp-http-server.js'
import { useTempDirs } from '../support/temp-dir.js'
import { page, startTestSite } from '../support/web-site.js'

const makeDir = useTempDirs('dsh-proxy-')

let proxy: ForwardProxy
const startModel = useLoopbackModels()
const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY }

beforeAll(async () => {
  assertBuilt()
  proxy = await startForwardProxy()
})
afterEach(async () => {
  proxy.seen.length = 0
})
afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  await proxy.close()
})

describe('outbound requests through a proxy', () => {
  it('reads the proxy from HTTPS_PROXY / HTTP_PROXY, blank counting as unset', () => {
    expect(proxyFromEnv({ HTTPS_PROXY: ' ', HTTP_PROXY: 'http://p:3128' })).toBe('http://p:3128')
    expect(proxyFromEnv({})).toBeUndefined()
  })

  it('dsh run keeps one proxy tunnel for all the model requests of a turn', async () => {
    const steps = [0, 1].map((i) => ({
      toolCalls: [{ name: 'bash', arguments: { command: `true # ${i}` } }],
    }))
    const model = await startModel([...steps, { text: 'Three requests.' }], { strict: true })
    const w = makeWorld(makeDir(), model.baseUrl)
    const args = ['run', '--permission-mode', 'bypassPermissions', 'go']
    const result = await runCli(args, { env: { ...w.env, HTTP_PROXY: proxy.url }, cwd: w.project })
    expect(result.stdout).toBe('Three requests.\n')
    expect(model.requests).toHaveLength(3)
    // One CONNECT: one dispatcher per proxy setting, whose tunnel undici keeps between requests.
    expect(proxy.seen).toEqual([`CONNECT ${new URL(model.baseUrl).host}`])
  })

  it('dsh run sends its model request through HTTP_PROXY, and straight to a NO_PROXY host', async () => {
    const model = await startModel([{ text: 'Via the proxy.' }, { text: 'Direct.' }], {
      strict: true,
    })
    const w = makeWorld(makeDir(), model.baseUrl)
    const proxied = await runCli(['run', 'hi'], { env: { ...w.env, HTTP_PROXY: proxy.url }, cwd: w.project })
    expect(proxied.stdout).toBe('Via the proxy.\n')
    expect(proxy.seen).toHaveLength(1)
    expect(proxiedAs(model.baseUrl, 'POST', '/chat/completions')).toContain(proxy.seen[0])
    const direct = await runCli(['run', 'hi'], {
      env: { ...w.env, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      cwd: w.project,
    })
    expect(direct.stdout).toBe('Direct.\n')
    expect(proxy.seen).toHaveLength(1)
  })

  it("dsh run's plain-HTTP web_fetch goes through HTTP_PROXY, and straight to a NO_PROXY host", async () => {
    const site = await startTestSite({ '/doc': page('<h1>Proxied page</h1>') })
    try {
      const fetchDoc = { toolCalls: [{ name: 'web_fetch', arguments: { url: `${site.origin}/doc` } }] }
      const model = await startModel([fetchDoc, { text: 'Fetched.' }, fetchDoc, { text: 'Again.' }], {
        strict: true,
      })
      const web = `web:\n  fetch: http\n  http:\n    allowPrivateHosts: ["127.0.0.1:${site.port}"]\n`
      const w = makeWorld(makeDir(), model.baseUrl, web)
      // The model server is in NO_PROXY by its port: only the page fetch may use the proxy.
      const modelHost = new URL(model.baseUrl).host
      const proxied = await runCli(['run', 'fetch it'], {
        env: { ...w.env, HTTP_PROXY: proxy.url, NO_PROXY: modelHost },
        cwd: w.project,
      })
      expect(proxied.stdout, proxied.stderr).toBe('Fetched.\n')
      expect(model.requests[1]!.messages.at(-1)!.content).toContain('Proxied page')
      expect(proxy.seen).toHaveLength(1)
      expect(proxiedAs(site.origin, 'GET', '/doc')).toContain(proxy.seen[0])
      const direct = await runCli(['run', 'fetch it'], {
        env: { ...w.env, HTTP_PROXY: proxy.url, NO_PROXY: `${modelHost},127.0.0.1:${site.port}` },
        cwd: w.project,
      })
      expect(direct.stdout, direct.stderr).toBe('Again.\n')
      expect(proxy.seen).toHaveLength(1)
      expect(site.hits).toEqual(['/doc', '/doc'])
    } finally {
      await site.close()
    }
  })

  it('DeepSeek Search and Fetch calls go through the proxy too', async () => {
    const stand = new WebToolsStandIn({
      apiKey: 'k',
      documents: [{ title: 'A page', url: 'https://example.org/a', summary: 'About a.' }],
      pages: { 'https://example.org/a': { title: 'A', content: '# A' } },
    })
    const server = await startModel([], { webTools: stand })
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
      ...proxiedAs(server.baseUrl, 'POST', '/v1/tools/search'),
      ...proxiedAs(server.baseUrl, 'POST', '/v1/tools/fetch'),
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
