// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config syntax under test
// ACP `mcpServers` driven by the ACP SDK's client (scoped to the session that brought
// them), Streamable HTTP and legacy SSE servers on 127.0.0.1 with their headers, and
// sub-agents using their parent's server processes.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import { type AcpTestClient, startAcpClient } from '../apps/acp/acp-client.js'
import { useTestHarnesses } from '../support/harness.js'
import { type McpHttpServer, startMcpHttpServer } from '../support/mcp-http-server.js'
import { EVERYTHING_SERVER, FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'
import { type RefusingHttpServer, startRefusingHttpServer } from './fixtures/refusing-http-server.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()
const clients: AcpTestClient[] = []
const servers: McpHttpServer[] = []
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
  while (servers.length > 0) await servers.pop()!.close()
})

const offered = (request: { tools?: { function: { name: string } }[] }) =>
  (request.tools ?? []).map((tool) => tool.function.name)
const lastTool = (request: { messages: { role: string; content?: unknown }[] }) =>
  String(request.messages.filter((message) => message.role === 'tool').at(-1)?.content)

describe('ACP mcpServers', () => {
  it(
    'advertises http and sse, and gives the session that brought servers their tools (only that one)',
    async () => {
      const test = await start({
        script: [
          { toolCalls: [{ name: 'mcp__everything_server__echo', arguments: { message: 'over acp' } }] },
          { text: 'done' },
          { text: 'other session' },
        ],
      })
      const client = await startAcpClient(test.harness)
      clients.push(client)
      const init = await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
      expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true })
      const cwd = tempDir()
      const { sessionId } = await client.agent.request('session/new', {
        cwd,
        mcpServers: [
          { name: 'everything server', command: 'node', args: [EVERYTHING_SERVER, 'stdio'], env: [] },
        ],
      })
      const answer = await client.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'echo something' }],
      })
      expect(answer.stopReason).toBe('end_turn')
      expect(offered(test.model.requests[0]!)).toContain('mcp__everything_server__echo')
      expect(lastTool(test.model.requests[1]!)).toContain('Echo: over acp')
      const update = client.updates.find(
        (note) =>
          note.update.sessionUpdate === 'tool_call_update' &&
          note.update.status === 'completed' &&
          note.sessionId === sessionId,
      )
      expect(JSON.stringify(update)).toContain('Echo: over acp')

      const other = await client.agent.request('session/new', { cwd, mcpServers: [] })
      await client.agent.request('session/prompt', {
        sessionId: other.sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      })
      expect(offered(test.model.requests[2]!).some((name) => name.startsWith('mcp__'))).toBe(false)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'session/load brings the servers given with it',
    async () => {
      const home = tempDir()
      const cwd = tempDir()
      const first = await start({ home, script: [{ text: 'first' }] })
      let client = await startAcpClient(first.harness)
      await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
      const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] })
      await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
      await client.close()
      await first.close()

      const second = await start({
        home,
        script: [{ toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'loaded' } }] }, { text: 'ok' }],
      })
      client = await startAcpClient(second.harness)
      clients.push(client)
      await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
      await client.agent.request('session/load', {
        sessionId,
        cwd,
        mcpServers: [{ name: 'fx', command: 'node', args: [FIXTURE_SERVER], env: [] }],
      })
      await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'use it' }] })
      expect(lastTool(second.model.requests[1]!)).toBe('echo: loaded')
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('refuses a server whose tool-name-safe name holds "__", in one error naming it', async () => {
    const test = await start({ script: [] })
    const client = await startAcpClient(test.harness)
    clients.push(client)
    await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
    const request = client.agent.request('session/new', {
      cwd: tempDir(),
      mcpServers: [{ name: 'odd  b', command: 'node', args: [FIXTURE_SERVER], env: [] }],
    })
    await expect(request).rejects.toThrow(
      'ACP mcpServers: "odd  b" (as a tool name odd__b): a server name may not hold "__"',
    )
  })

  it(
    'connects to Streamable HTTP and SSE servers given over ACP, sending their headers',
    async () => {
      const http = await startMcpHttpServer()
      servers.push(http)
      const test = await start({
        script: [
          {
            toolCalls: [
              { name: 'mcp__web__whoami', arguments: {} },
              { name: 'mcp__legacy__echo', arguments: { text: 'via sse' } },
            ],
          },
          { text: 'done' },
        ],
      })
      const client = await startAcpClient(test.harness)
      clients.push(client)
      await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
      const { sessionId } = await client.agent.request('session/new', {
        cwd: tempDir(),
        mcpServers: [
          {
            type: 'http',
            name: 'web',
            url: `${http.origin}/mcp`,
            headers: [{ name: 'Authorization', value: 'Bearer acp-token' }],
          },
          { type: 'sse', name: 'legacy', url: `${http.origin}/sse`, headers: [] },
        ],
      })
      await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })
      const tools = test.model.requests[1]!.messages.filter((message) => message.role === 'tool')
      expect(String(tools[0]!.content)).toBe('authorization: Bearer acp-token')
      expect(String(tools[1]!.content)).toBe('http echo: via sse')
      expect(http.requests).toContain('POST /mcp')
      expect(http.requests).toContain('GET /sse')
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})

describe('HTTP servers from the config', () => {
  it(
    'expands ${VAR} in url and headers, and reports a server that is not there',
    async () => {
      const http = await startMcpHttpServer()
      servers.push(http)
      process.env.MCP_TEST_HTTP_TOKEN = 'from-env'
      try {
        const test = await start({
          config: {
            mcpServers: {
              web: {
                type: 'http',
                url: `${http.origin}/\${MCP_TEST_HTTP_PATH:-mcp}`,
                headers: { Authorization: 'Bearer ${MCP_TEST_HTTP_TOKEN}' },
              },
              gone: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
            },
          },
          script: [{ toolCalls: [{ name: 'mcp__web__whoami', arguments: {} }] }, { text: 'ok' }],
        })
        const agent = await test.harness.agents.create({ sessionId: 'http', meta: { cwd: tempDir() } })
        expect((await agent.prompt('go')).reason).toBe('completed')
        expect(lastTool(test.model.requests[1]!)).toBe('authorization: Bearer from-env')
        const gone = test.harness.ctx.mcp.status().find((row) => row.name === 'gone')
        expect(gone).toMatchObject({ state: 'failed' })
        expect(gone!.error).toBeTruthy()
      } finally {
        delete process.env.MCP_TEST_HTTP_TOKEN
      }
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})

const refusals: RefusingHttpServer[] = []
afterEach(async () => {
  while (refusals.length > 0) await refusals.pop()!.close()
})

describe('HTTP servers that refuse', () => {
  it(
    'are reported in one line with the status and a short reason, never the page; the model reads the same line',
    async () => {
      const refusing = await startRefusingHttpServer()
      refusals.push(refusing)
      const auth =
        'HTTP 401 Unauthorized: authentication required: set headers (e.g. Authorization) for this server in its config'
      const test = await start({
        config: {
          mcpServers: {
            page401: { type: 'http', url: `${refusing.origin}/401/mcp` },
            empty401: { type: 'http', url: `${refusing.origin}/empty/mcp` },
            gateway: { type: 'http', url: `${refusing.origin}/502/mcp` },
            legacy401: { type: 'sse', url: `${refusing.origin}/401/sse` },
          },
        },
        script: [{ toolCalls: [{ name: 'mcp__page401__anything', arguments: {} }] }, { text: 'ok' }],
      })
      const warnings: string[] = []
      test.harness.ctx.logger.exporter({
        export: (message) => {
          if (message.type === 'warn') warnings.push(message.args.map(String).join(' '))
        },
      })
      const agent = await test.harness.agents.create({ sessionId: 'refused', meta: { cwd: tempDir() } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      const errors = Object.fromEntries(test.harness.ctx.mcp.status().map((row) => [row.name, row.error]))
      expect(errors).toEqual({
        page401: auth,
        empty401: auth,
        gateway: 'HTTP 502 Bad Gateway',
        legacy401: auth,
      })
      const said = (line: string) => warnings.some((warning) => warning.endsWith(line))
      expect(said(`MCP server page401 failed to start: ${auth}`)).toBe(true)
      expect(said('MCP server gateway failed to start: HTTP 502 Bad Gateway')).toBe(true)
      expect(lastTool(test.model.requests[1]!)).toBe(`MCP server page401 is not available: ${auth}.`)
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})

describe('sub-agents', () => {
  it(
    "use their parent's MCP tools on the parent's server process",
    async () => {
      const cwd = tempDir()
      const mark = join(cwd, 'mark')
      const test = await start({
        config: {
          mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER], env: { FIXTURE_MARK: mark } } },
        },
        script: [
          { toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'parent' } }] },
          { toolCalls: [{ name: 'subagent', arguments: { description: 'echo', prompt: 'echo child' } }] },
          { toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'child' } }] },
          { text: 'child done' },
          { text: 'parent done' },
        ],
      })
      const agent = await test.harness.agents.create({ sessionId: 'parent', meta: { cwd } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      expect(lastTool(test.model.requests[3]!)).toBe('echo: child')
      expect(readFileSync(mark, 'utf8').match(/^pid /gm)).toHaveLength(1)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'of an ACP session see the servers that session brought',
    async () => {
      const test = await start({
        script: [
          { toolCalls: [{ name: 'subagent', arguments: { description: 'echo', prompt: 'echo child' } }] },
          { toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'acp child' } }] },
          { text: 'child done' },
          { text: 'parent done' },
        ],
      })
      const client = await startAcpClient(test.harness)
      clients.push(client)
      await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
      const { sessionId } = await client.agent.request('session/new', {
        cwd: tempDir(),
        mcpServers: [{ name: 'fx', command: 'node', args: [FIXTURE_SERVER], env: [] }],
      })
      await client.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'delegate' }],
      })
      expect(offered(test.model.requests[1]!)).toContain('mcp__fx__echo')
      expect(lastTool(test.model.requests[2]!)).toBe('echo: acp child')
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
