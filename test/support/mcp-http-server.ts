// An MCP server over HTTP on 127.0.0.1 for tests, built on the official SDK's server
// transports: Streamable HTTP at /mcp (stateless) and the legacy SSE transport at
// /sse + /messages. Its tools: `echo`, and `whoami` (the Authorization header it received).

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

export interface McpHttpServer {
  /** e.g. http://127.0.0.1:12345 */
  readonly origin: string
  /** Requests seen, as `METHOD path`. */
  readonly requests: string[]
  /** The headers and full URL (path and query) of each request, in order. */
  readonly received: { url: string; headers: IncomingHttpHeaders }[]
  close(): Promise<void>
}

function buildServer(
  request: IncomingMessage | undefined,
  authorization: () => string | undefined,
): McpServer {
  const server = new McpServer({ name: 'dsh-http-fixture', version: '1.0.0' })
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: 'text', text: `http echo: ${text}` }],
    }),
  )
  server.registerTool('whoami', { description: 'The Authorization header of the request' }, async () => ({
    content: [
      {
        type: 'text',
        text: `authorization: ${authorization() ?? request?.headers.authorization ?? '(none)'}`,
      },
    ],
  }))
  return server
}

export async function startMcpHttpServer(): Promise<McpHttpServer> {
  const requests: string[] = []
  const received: { url: string; headers: IncomingHttpHeaders }[] = []
  const sse = new Map<string, { transport: SSEServerTransport; authorization: string | undefined }>()
  const http: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    requests.push(`${req.method} ${url.pathname}`)
    received.push({ url: req.url ?? '/', headers: req.headers })
    try {
      if (url.pathname === '/mcp') {
        if (req.method !== 'POST') {
          res.writeHead(405).end()
          return
        }
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
        const server = buildServer(req, () => req.headers.authorization)
        res.on('close', () => {
          void transport.close()
          void server.close()
        })
        await server.connect(transport)
        await transport.handleRequest(req, res)
        return
      }
      if (url.pathname === '/sse' && req.method === 'GET') {
        const transport = new SSEServerTransport('/messages', res)
        const authorization = req.headers.authorization
        sse.set(transport.sessionId, { transport, authorization })
        res.on('close', () => sse.delete(transport.sessionId))
        await buildServer(undefined, () => authorization).connect(transport)
        return
      }
      if (url.pathname === '/messages' && req.method === 'POST') {
        const entry = sse.get(url.searchParams.get('sessionId') ?? '')
        if (!entry) {
          res.writeHead(404).end('unknown session')
          return
        }
        await entry.transport.handlePostMessage(req, res)
        return
      }
      res.writeHead(404).end()
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error))
    }
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const { transport } of sse.values()) void transport.close()
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}
