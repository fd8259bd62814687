// A Streamable HTTP server that keeps sessions (MCP-Session-Id) and restarts: its sessions
// are gone, it answers their requests with 404, and dsh starts a new session (MCP
// 2025-11-25, Transports › Session Management) and makes the call again, once.

import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import { useTestHarnesses } from '../support/harness.js'
import { SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

interface SessionServer {
  url: string
  /** `initialize` requests seen, over every life of the server. */
  initializes: number
  /** Stops and starts again on the same port, knowing no session. */
  restart(): Promise<void>
  close(): Promise<void>
}

/** One process's life of the server: sessions live in its memory only. */
function listen(port: number, onInitialize: () => void): Promise<Server> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer(async (req, res) => {
    const body = req.method === 'POST' ? JSON.parse(await text(req)) : undefined
    const id = req.headers['mcp-session-id']
    let transport = typeof id === 'string' ? sessions.get(id) : undefined
    if (id !== undefined && !transport) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
      )
      return
    }
    if (!transport) {
      if (body?.method === 'initialize') onInitialize()
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => void sessions.set(session, created),
      })
      const server = new McpServer({ name: 'dsh-session-fixture', version: '1.0.0' })
      server.registerTool('hello', { inputSchema: { who: z.string() } }, async ({ who }) => ({
        content: [{ type: 'text', text: `hello ${who}` }],
      }))
      await server.connect(created)
      transport = created
    }
    await transport.handleRequest(req, res, body)
  })
  return new Promise((resolve) => http.listen(port, '127.0.0.1', () => resolve(http)))
}

async function text(req: NodeJS.ReadableStream): Promise<string> {
  let all = ''
  for await (const chunk of req) all += chunk
  return all
}

function stop(http: Server): Promise<void> {
  http.closeAllConnections()
  return new Promise((resolve) => http.close(() => resolve()))
}

async function startSessionServer(): Promise<SessionServer> {
  const state = {
    initializes: 0,
  }
  let http = await listen(0, () => {
    state.initializes += 1
  })
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get initializes() {
      return state.initializes
    },
    async restart() {
      await stop(http)
      http = await listen(port, () => {
        state.initializes += 1
      })
    },
    close: () => stop(http),
  }
}

let server: SessionServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

it(
  'starts a new session when a restarted server answers 404, and makes the call again, once',
  async () => {
    server = await startSessionServer()
    const restarted = server
    const { harness, model } = await start({
      config: { mcpServers: { h: { type: 'http', url: server.url } } },
      script: [
        { toolCalls: [{ name: 'mcp__h__hello', arguments: { who: 'before' } }] },
        async () => {
          await restarted.restart()
          return { toolCalls: [{ name: 'mcp__h__hello', arguments: { who: 'after the restart' } }] }
        },
        { toolCalls: [{ name: 'mcp__h__hello', arguments: { who: 'again' } }] },
        { text: 'done' },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'http-restart', meta: { cwd: tempDir() } })
    expect((await agent.prompt('go')).reason).toBe('completed')
    const results = model.requests[3]!.messages.filter((message) => message.role === 'tool')
    expect(results.map((result) => result.content)).toEqual([
      'hello before',
      'hello after the restart',
      'hello again',
    ])
    expect(server.initializes).toBe(2)
    expect(harness.ctx.mcp.status()[0]).toMatchObject({ name: 'h', state: 'connected' })
  },
  SERVER_TEST_TIMEOUT_MS,
)
