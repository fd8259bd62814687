// MCP tools in a full turn: the loopback model calls a tool of the MCP project's reference
// "everything" server (a real stdio child) through dsh's tool pipeline and answers with it.

import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ScriptRequest } from '../../src/llm/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

const lastToolResult = (request: ScriptRequest) =>
  [...request.messages].reverse().find((message) => message.role === 'tool')?.content ?? ''

const everything = { command: 'node', args: [EVERYTHING_SERVER, 'stdio'] }
const EDGE_SERVER = join(import.meta.dirname, 'fixtures/edge-server.mjs')

describe('MCP tools in a turn', () => {
  it(
    'offers mcp__everything__* tools with their schemas and answers with a tool result',
    async () => {
      const seen: ScriptRequest[] = []
      const { harness } = await start({
        config: { mcpServers: { everything } },
        script: [
          (request) => {
            seen.push(request)
            return {
              text: 'Adding.',
              toolCalls: [{ name: 'mcp__everything__get-sum', arguments: { a: 2, b: 40 } }],
            }
          },
          (request) => ({ text: `The MCP server says: ${lastToolResult(request)}` }),
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'mcp-turn', meta: { cwd: tempDir() } })
      const result = await agent.prompt('add 2 and 40')
      expect(result.reason).toBe('completed')
      expect(result.text).toContain('42')
      const sum = seen[0]!.tools.find((tool) => tool.name === 'mcp__everything__get-sum')
      expect(sum?.parameters).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' } },
        required: ['a', 'b'],
      })
      expect(seen[0]!.tools.map((tool) => tool.name)).toContain('bash')
      const call = agent.session.events.find((event) => event.type === 'tool/call')
      expect(call?.data).toMatchObject({ name: 'mcp__everything__get-sum' })
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'converts structured, image and resource results, and rejects arguments the schema refuses',
    async () => {
      const { harness, model } = await start({
        config: { mcpServers: { everything } },
        script: [
          {
            toolCalls: [
              { name: 'mcp__everything__get-structured-content', arguments: { location: 'Chicago' } },
              { name: 'mcp__everything__get-tiny-image', arguments: {} },
              {
                name: 'mcp__everything__get-resource-reference',
                arguments: { resourceType: 'Text', resourceId: 2 },
              },
              { name: 'mcp__everything__get-sum', arguments: { a: 'two' } },
            ],
          },
          { text: 'done' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'mcp-results', meta: { cwd: tempDir() } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      const tools = model.requests[1]!.messages.filter((message) => message.role === 'tool')
      expect(tools[0]!.content).toMatch(/"temperature"/)
      // The server sends its structured content also as text: the model gets it once.
      expect(String(tools[0]!.content).match(/"temperature"/g)).toHaveLength(1)
      expect(tools[0]!.content).not.toContain('[structured content]')
      expect(tools[1]!.content).toMatch(/\[image: image\/png, \d+ bytes\]/)
      expect(tools[2]!.content).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/2\]/)
      expect(tools[3]!.content).toMatch(/^Invalid arguments for mcp__everything__get-sum/)
      const results = agent.session.events.filter((event) => event.type === 'tool/result')
      expect((results[3]!.data as { isError?: boolean }).isError).toBe(true)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'offers tools whose names clash once made safe under distinct names, each call reaching its own tool',
    async () => {
      const names: string[] = []
      const { harness, model } = await start({
        config: { mcpServers: { odd: { command: 'node', args: [EDGE_SERVER, 'clash'] } } },
        script: [
          (request) => {
            names.push(...request.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp__')))
            return { toolCalls: names.map((name) => ({ name, arguments: {} })) }
          },
          { text: 'done' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'mcp-clash', meta: { cwd: tempDir() } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      expect(names).toHaveLength(4)
      expect(new Set(names).size).toBe(4)
      expect(names).toContain('mcp__odd__get_user')
      const results = model.requests[1]!.messages.filter((message) => message.role === 'tool')
      expect(results.map((result) => result.content).sort()).toEqual(
        ['get.user ran', 'get_user ran', 'long .one ran', 'long _one ran'].sort(),
      )
      const plain = names.indexOf('mcp__odd__get_user')
      expect(results[plain]!.content).toBe('get_user ran')
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'gives an image its exact size in bytes: base64 padding is not counted',
    async () => {
      const { MCP_TINY_IMAGE } = (await import(
        join(dirname(EVERYTHING_SERVER), 'tools/get-tiny-image.js')
      )) as {
        MCP_TINY_IMAGE: string
      }
      // The reference server's image ends in `==`: a count from the length alone is 2 too many.
      expect(MCP_TINY_IMAGE.endsWith('==')).toBe(true)
      const { harness, model } = await start({
        config: { mcpServers: { everything } },
        script: [
          { toolCalls: [{ name: 'mcp__everything__get-tiny-image', arguments: {} }] },
          { text: 'done' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'mcp-image', meta: { cwd: tempDir() } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      const [result] = model.requests[1]!.messages.filter((message) => message.role === 'tool')
      expect(result!.content).toContain(
        `[image: image/png, ${Buffer.from(MCP_TINY_IMAGE, 'base64').length} bytes]`,
      )
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'runs the reference filesystem server in its allowed folder',
    async () => {
      const folder = tempDir()
      writeFileSync(join(folder, 'notes.txt'), 'hello from a file\n')
      const { harness, model } = await start({
        config: { mcpServers: { fs: { command: 'node', args: [FILESYSTEM_SERVER, folder] } } },
        script: [
          {
            toolCalls: [{ name: 'mcp__fs__read_text_file', arguments: { path: join(folder, 'notes.txt') } }],
          },
          { toolCalls: [{ name: 'mcp__fs__read_text_file', arguments: { path: '/etc/passwd' } }] },
          { text: 'done' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'mcp-fs', meta: { cwd: folder } })
      expect((await agent.prompt('read it')).reason).toBe('completed')
      const toolText = (index: number) =>
        String(model.requests[index]!.messages.filter((message) => message.role === 'tool').at(-1)?.content)
      expect(toolText(1)).toContain('hello from a file')
      expect(toolText(2)).toMatch(/denied|outside/i)
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
