// Prompts, resources, tools/list_changed, progress and cancellation, against the reference
// "everything" server and dsh's fixture server.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { McpProgress } from '../../src/mcp/index.js'
import { expandPromptCommand, promptCommands } from '../../src/mcp/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { EVERYTHING_SERVER, FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

const offered = (request: { tools?: { function: { name: string } }[] }) =>
  (request.tools ?? []).map((tool) => tool.function.name)
const toolTexts = (request: { messages: { role: string; content?: unknown }[] }) =>
  request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content))

const everything = { command: 'node', args: [EVERYTHING_SERVER, 'stdio'] }

describe('prompts and resources', () => {
  it(
    'offers the prompts of a server that advertises them as /mcp__server__prompt, with arguments',
    async () => {
      const { harness } = await start({ config: { mcpServers: { everything } }, script: [] })
      const agent = await harness.agents.create({ sessionId: 'prompts', meta: { cwd: tempDir() } })
      await harness.ctx.mcp.prepare(agent)
      const commands = await promptCommands(harness.ctx.mcp, agent)
      expect(commands.map((command) => command.name)).toContain('mcp__everything__args-prompt')
      expect(
        commands.find((command) => command.name === 'mcp__everything__args-prompt')?.argumentNames,
      ).toEqual(['city', 'state'])
      const text = await expandPromptCommand(
        harness.ctx.mcp,
        agent,
        '/mcp__everything__args-prompt Paris Ile de France',
      )
      expect(text).toContain('Paris')
      expect(text).toContain('Ile de France')
      expect(await expandPromptCommand(harness.ctx.mcp, agent, '/mcp__everything__nope')).toBeUndefined()
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'lists and reads resources with two tools, offered only while a server has resources',
    async () => {
      const { harness, model } = await start({
        config: {
          mcpServers: { everything, fx: { command: 'node', args: [FIXTURE_SERVER] } },
        },
        script: [
          { toolCalls: [{ name: 'mcp_list_resources', arguments: {} }] },
          {
            toolCalls: [
              {
                name: 'mcp_read_resource',
                arguments: { server: 'everything', uri: 'demo://resource/static/document/architecture.md' },
              },
              { name: 'mcp_read_resource', arguments: { server: 'fx', uri: 'x://y' } },
            ],
          },
          { text: 'read' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'resources', meta: { cwd: tempDir() } })
      expect((await agent.prompt('read the docs')).reason).toBe('completed')
      expect(offered(model.requests[0]!)).toEqual(
        expect.arrayContaining(['mcp_list_resources', 'mcp_read_resource']),
      )
      expect(toolTexts(model.requests[1]!)[0]).toContain(
        'everything demo://resource/static/document/architecture.md architecture.md (text/markdown)',
      )
      const [read, refused] = toolTexts(model.requests[2]!).slice(1)
      expect(read).toMatch(/^\[resource demo:\/\/resource\/static\/document\/architecture.md\]\n/)
      expect(refused).toBe('No connected MCP server named fx offers resources.')
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'never offers resource tools when no server advertises resources',
    async () => {
      const { harness, model } = await start({
        config: { mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER] } } },
        script: [{ text: 'ok' }],
      })
      const agent = await harness.agents.create({ sessionId: 'no-resources', meta: { cwd: tempDir() } })
      await agent.prompt('hi')
      expect(offered(model.requests[0]!)).toContain('mcp__fx__echo')
      expect(offered(model.requests[0]!)).not.toContain('mcp_list_resources')
      expect(await promptCommands(harness.ctx.mcp, agent)).toEqual([])
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})

describe('tools/list_changed', () => {
  it(
    'adds the new tool between steps and keeps the tool list identical otherwise',
    async () => {
      const { harness, model } = await start({
        config: { mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER] } } },
        script: [
          { toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'a' } }] },
          { toolCalls: [{ name: 'mcp__fx__add_tool', arguments: {} }] },
          { toolCalls: [{ name: 'mcp__fx__extra_1', arguments: {} }] },
          { text: 'done' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'changed', meta: { cwd: tempDir() } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      expect(JSON.stringify(model.requests[1]!.tools)).toBe(JSON.stringify(model.requests[0]!.tools))
      expect(offered(model.requests[1]!)).not.toContain('mcp__fx__extra_1')
      expect(offered(model.requests[2]!)).toContain('mcp__fx__extra_1')
      expect(toolTexts(model.requests[3]!).at(-1)).toBe('extra_1 ran')
      const configs = agent.session.events.filter((event) => event.type === 'request/config')
      expect(configs).toHaveLength(2)
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})

describe('progress and cancellation', () => {
  it(
    'reports progress notifications and sends the MCP cancel when the turn is aborted',
    async () => {
      const folder = tempDir()
      const mark = join(folder, 'mark')
      const { harness } = await start({
        config: {
          mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER], env: { FIXTURE_MARK: mark } } },
        },
        script: [{ toolCalls: [{ name: 'mcp__fx__slow', arguments: {} }] }, { text: 'not reached' }],
      })
      const progress: McpProgress[] = []
      const controller = new AbortController()
      harness.ctx.on('mcp/progress', (event) => {
        progress.push(event)
        if (progress.length === 3) controller.abort()
      })
      const agent = await harness.agents.create({ sessionId: 'progress', meta: { cwd: folder } })
      const result = await agent.prompt('go slowly', { signal: controller.signal })
      expect(result.reason).toBe('aborted')
      expect(
        progress.slice(0, 3).map((event) => [event.server, event.progress, event.total, event.message]),
      ).toEqual([
        ['fx', 1, 200, 'step 1'],
        ['fx', 2, 200, 'step 2'],
        ['fx', 3, 200, 'step 3'],
      ])
      expect(progress[0]!.execution.agent?.id).toBe('progress')
      const deadline = Date.now() + 10_000
      while (
        !(existsSync(mark) && readFileSync(mark, 'utf8').includes('CANCELLED')) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(readFileSync(mark, 'utf8')).toContain('CANCELLED')
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'spills a long result to a file under the harness home and keeps its head',
    async () => {
      const { harness, home } = await start({
        config: { mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER] } } },
        script: [{ toolCalls: [{ name: 'mcp__fx__big', arguments: { chars: 100_000 } }] }, { text: 'ok' }],
      })
      const agent = await harness.agents.create({ sessionId: 'big', meta: { cwd: tempDir() } })
      await agent.prompt('go')
      const result = agent.session.events.find((event) => event.type === 'tool/result')!.data as {
        content: string
      }
      const path = /\[output truncated; full output: (.+)\]$/.exec(result.content)?.[1]
      expect(path?.startsWith(home)).toBe(true)
      expect(readFileSync(path!, 'utf8')).toHaveLength(100_000)
      expect(result.content.length).toBeLessThan(31_000)
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
