// Project `.mcp.json` servers load only in a trusted folder, and the project's own files
// cannot approve them; hooks and permission rules match `mcp__<server>__<tool>` names;
// unloading the plugin removes the tools.

import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mcpToolName, mcpToolsPlugin } from '../../src/mcp/index.js'
import {
  evaluateRules,
  matchesRule,
  parsePermissionRule,
  parsePermissionRules,
} from '../../src/permissions/index.js'
import { fingerprintProjectConfig, ProjectTrustStore } from '../../src/trust/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()
const EDGE_SERVER = join(import.meta.dirname, 'fixtures/edge-server.mjs')

/** A project (a `.git` marker) with a `.mcp.json` naming the fixture server, and a subfolder. */
function makeProject(extra: Record<string, unknown> = {}): { root: string; sub: string } {
  const root = tempDir()
  mkdirSync(join(root, '.git'))
  const sub = join(root, 'src')
  mkdirSync(sub)
  writeFileSync(
    join(root, '.mcp.json'),
    JSON.stringify({ mcpServers: { proj: { command: 'node', args: [FIXTURE_SERVER] } }, ...extra }),
  )
  return { root, sub }
}

const offered = (request: { tools?: { function: { name: string } }[] }) =>
  (request.tools ?? []).map((tool) => tool.function.name)

describe('project .mcp.json', () => {
  it(
    'asks once per project root, names the servers, and loads them when trusted',
    async () => {
      const { root, sub } = makeProject()
      const asked: [string, readonly string[]][] = []
      const { harness, model } = await start({
        trust: {
          frontEnd: 'interactive',
          ask: async (folder, brings) => {
            asked.push([folder, brings])
            return true
          },
        },
        script: [{ text: 'one' }, { text: 'two' }],
      })
      const first = await harness.agents.create({ sessionId: 'p1', meta: { cwd: sub } })
      const second = await harness.agents.create({ sessionId: 'p2', meta: { cwd: root } })
      await first.prompt('hi')
      await second.prompt('hi')
      expect(asked).toEqual([[root, ['MCP server proj']]])
      expect(offered(model.requests[0]!)).toContain('mcp__proj__echo')
      expect(offered(model.requests[1]!)).toContain('mcp__proj__echo')
      expect(harness.ctx.mcp.status(root)[0]).toMatchObject({ name: 'proj', source: { kind: 'project' } })
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('starts nothing from a project the user declined, and says so', async () => {
    const { root } = makeProject()
    const { harness, model } = await start({
      trust: { frontEnd: 'interactive', ask: async () => false },
      script: [{ text: 'ok' }],
    })
    const agent = await harness.agents.create({ sessionId: 'declined', meta: { cwd: root } })
    await agent.prompt('hi')
    expect(offered(model.requests[0]!).some((name) => name.startsWith('mcp__'))).toBe(false)
    expect(harness.ctx.mcp.status(root)[0]).toMatchObject({ name: 'proj', state: 'untrusted' })
  })

  it(
    'starts nothing when the trust question fails (fails closed), and says why',
    async () => {
      const { root } = makeProject()
      const { harness, model } = await start({
        trust: {
          frontEnd: 'interactive',
          ask: async () => {
            throw new Error('the terminal went away')
          },
        },
        script: [{ text: 'ok' }],
      })
      const warnings: string[] = []
      harness.ctx.logger.exporter({
        export: (message) => {
          if (message.type === 'warn') warnings.push(message.args.map(String).join(' '))
        },
      })
      const agent = await harness.agents.create({ sessionId: 'trust-throws', meta: { cwd: root } })
      expect((await agent.prompt('hi')).reason).toBe('completed')
      expect(offered(model.requests[0]!).some((name) => name.startsWith('mcp__'))).toBe(false)
      expect(await harness.ctx.mcp.projectTrusted(agent)).toBe(false)
      expect(harness.ctx.mcp.status(root)[0]).toMatchObject({ name: 'proj', state: 'untrusted' })
      expect(warnings.some((line) => line.includes('the terminal went away'))).toBe(true)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it("cannot be approved by the project's own files when the front end cannot ask", async () => {
    const { root } = makeProject({ enableAllProjectMcpServers: true, trusted: true })
    // A trust file inside the project is not the user's trust store.
    mkdirSync(join(root, '.dsh'))
    writeFileSync(
      join(root, '.dsh', 'trusted-folders.json'),
      JSON.stringify({ version: 1, folders: [{ folder: root, trustedAt: 1 }] }),
    )
    const home = tempDir()
    const { harness, model } = await start({
      home,
      trust: { frontEnd: 'interactive' },
      script: [{ text: 'ok' }],
    })
    const agent = await harness.agents.create({ sessionId: 'no-bypass', meta: { cwd: root } })
    await agent.prompt('hi')
    expect(offered(model.requests[0]!).some((name) => name.startsWith('mcp__'))).toBe(false)
  })

  it(
    "loads a folder the user's trust store remembers with this content, headless or not",
    async () => {
      const { root } = makeProject()
      const home = tempDir()
      new ProjectTrustStore(home).trust(root, Date.now(), fingerprintProjectConfig(root))
      for (const frontEnd of ['interactive', 'headless'] as const) {
        const { harness, model } = await start({ home, trust: { frontEnd }, script: [{ text: 'ok' }] })
        const agent = await harness.agents.create({
          sessionId: `remembered-${frontEnd}`,
          meta: { cwd: root },
        })
        await agent.prompt('hi')
        expect(offered(model.requests[0]!)).toContain('mcp__proj__echo')
      }
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'a .mcp.json changed since the folder was trusted: headless leaves it out in one line, chat asks again naming the change',
    async () => {
      const { root } = makeProject()
      const home = tempDir()
      new ProjectTrustStore(home).trust(root, Date.now(), fingerprintProjectConfig(root))
      // A clone pulled a change, or an unsandboxed command planted a server.
      writeFileSync(
        join(root, '.mcp.json'),
        JSON.stringify({ mcpServers: { evil: { command: 'node', args: [FIXTURE_SERVER] } } }),
      )
      const headless = await start({ home, trust: { frontEnd: 'headless' }, script: [{ text: 'ok' }] })
      const warnings: string[] = []
      headless.harness.ctx.logger.exporter({
        export: (message) =>
          void (message.type === 'warn' && warnings.push(message.args.map(String).join(' '))),
      })
      const run = await headless.harness.agents.create({ sessionId: 'changed-run', meta: { cwd: root } })
      await run.prompt('hi')
      expect(offered(headless.model.requests[0]!).some((name) => name.startsWith('mcp__'))).toBe(false)
      expect(warnings).toEqual([
        expect.stringContaining(
          `project ${root}: .mcp.json changed since you trusted it; not loaded: MCP server evil`,
        ),
      ])
      const asked: (readonly string[])[] = []
      const chat = await start({
        home,
        trust: { frontEnd: 'interactive', ask: async (_folder, brings) => asked.push(brings) > 0 },
        script: [{ text: 'ok' }],
      })
      const agent = await chat.harness.agents.create({ sessionId: 'changed-chat', meta: { cwd: root } })
      await agent.prompt('hi')
      expect(asked).toEqual([['changed since you trusted it: .mcp.json', 'MCP server evil']])
      expect(offered(chat.model.requests[0]!)).toContain('mcp__evil__echo')
      // The yes is remembered with the new content: the next headless run loads it.
      const next = await start({ home, trust: { frontEnd: 'headless' }, script: [{ text: 'ok' }] })
      await (await next.harness.agents.create({ sessionId: 'after-yes', meta: { cwd: root } })).prompt('hi')
      expect(offered(next.model.requests[0]!)).toContain('mcp__evil__echo')
    },
    SERVER_TEST_TIMEOUT_MS * 2,
  )

  it(
    "a question asked for the folder's hooks names its MCP servers too, and the yes loads them",
    async () => {
      const { root } = makeProject()
      mkdirSync(join(root, '.claude'))
      writeFileSync(
        join(root, '.claude', 'settings.json'),
        JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'true' }] }] } }),
      )
      const asked: (readonly string[])[] = []
      const { harness, model } = await start({
        trust: {
          frontEnd: 'interactive',
          ask: async (_folder, brings) => {
            asked.push(brings)
            return true
          },
        },
        script: [{ text: 'ok' }],
      })
      const agent = await harness.agents.create({ sessionId: 'hooks-first', meta: { cwd: root } })
      await agent.prompt('hi')
      // The hooks asked first (at agent set-up); the one question still names the server.
      expect(asked).toHaveLength(1)
      expect(asked[0]![0]).toMatch(/hook/)
      expect(asked[0]).toContain('MCP server proj')
      expect(offered(model.requests[0]!)).toContain('mcp__proj__echo')
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'refuses a server name holding "__" (mcp__odd would match its tools too), loading the others',
    async () => {
      const root = tempDir()
      mkdirSync(join(root, '.git'))
      writeFileSync(
        join(root, '.mcp.json'),
        JSON.stringify({
          mcpServers: {
            odd: { command: 'node', args: [FIXTURE_SERVER] },
            odd__b: { command: 'node', args: [FIXTURE_SERVER] },
          },
        }),
      )
      const home = tempDir()
      new ProjectTrustStore(home).trust(root, Date.now(), fingerprintProjectConfig(root))
      const { harness, model } = await start({
        home,
        trust: { frontEnd: 'headless' },
        script: [{ text: 'ok' }],
      })
      expect(harness.ctx.mcp.projectProblems(root)).toEqual([
        `${join(root, '.mcp.json')}: mcpServers.odd__b: a server name may not hold "__": tool names are mcp__<server>__<tool>, so permission rules and hooks could not tell the server from the tool`,
      ])
      const agent = await harness.agents.create({ sessionId: 'odd-names', meta: { cwd: root } })
      await agent.prompt('hi')
      const tools = offered(model.requests[0]!).filter((name) => name.startsWith('mcp__'))
      expect(tools).toContain('mcp__odd__echo')
      expect(tools.some((name) => name.startsWith('mcp__odd__b__'))).toBe(false)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it(
    'runs a server with a relative cwd in that folder of the project root, wherever dsh started',
    async () => {
      const { root, sub } = makeProject()
      mkdirSync(join(root, 'tools'))
      writeFileSync(
        join(root, '.mcp.json'),
        JSON.stringify({ mcpServers: { proj: { command: 'node', args: [EDGE_SERVER], cwd: 'tools' } } }),
      )
      const home = tempDir()
      new ProjectTrustStore(home).trust(root, Date.now(), fingerprintProjectConfig(root))
      const { harness, model } = await start({
        home,
        trust: { frontEnd: 'headless' },
        script: [{ toolCalls: [{ name: 'mcp__proj__cwd', arguments: {} }] }, { text: 'ok' }],
      })
      expect(process.cwd()).not.toBe(root)
      const agent = await harness.agents.create({ sessionId: 'proj-cwd', meta: { cwd: sub } })
      expect((await agent.prompt('go')).reason).toBe('completed')
      const [result] = model.requests[1]!.messages.filter((message) => message.role === 'tool')
      expect(result!.content).toBe(realpathSync(join(root, 'tools')))
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('skips a bad entry with a warning and keeps the good ones', async () => {
    const root = tempDir()
    mkdirSync(join(root, '.git'))
    writeFileSync(
      join(root, '.mcp.json'),
      JSON.stringify({ mcpServers: { bad: { type: 'http' }, good: { command: 'node', args: ['-e', '0'] } } }),
    )
    const { harness } = await start({ trust: { frontEnd: 'headless' }, script: [{ text: 'ok' }] })
    expect(harness.ctx.mcp.projectProblems(root)).toEqual([expect.stringContaining('mcpServers.bad')])
    expect(harness.ctx.mcp.status(root).map((row) => row.name)).toEqual(['good'])
  })
})

describe('policies on MCP tool names', () => {
  it(
    'a Claude Code PreToolUse hook matching mcp__.* blocks the call before the server sees it',
    async () => {
      const folder = tempDir()
      const mark = join(folder, 'mark')
      const settings = join(folder, 'settings.json')
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: {
            PreToolUse: [
              {
                matcher: 'mcp__fx__.*',
                hooks: [{ type: 'command', command: "echo 'no MCP echo today' >&2; exit 2" }],
              },
            ],
          },
        }),
      )
      const { harness } = await start({
        config: {
          hooks: { claudeCode: [settings] },
          mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER], env: { FIXTURE_MARK: mark } } },
        },
        script: [{ toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'x' } }] }, { text: 'ok' }],
      })
      const agent = await harness.agents.create({ sessionId: 'hooked', meta: { cwd: folder } })
      await agent.prompt('go')
      const result = agent.session.events.find((event) => event.type === 'tool/result')!.data as {
        content: string
        isError?: boolean
      }
      expect(result).toMatchObject({ isError: true })
      expect(result.content).toContain('no MCP echo today')
      expect(agent.session.events.some((event) => event.type === 'hook/invoked')).toBe(true)
    },
    SERVER_TEST_TIMEOUT_MS,
  )

  it('permission rules name a server or one of its tools', () => {
    const subject = (tool: string) => ({ tool, input: {}, cwd: '/' })
    const matches = (rule: string, tool: string) =>
      matchesRule(parsePermissionRule(rule), subject(tool), 'any')
    expect(matches('mcp__fx', mcpToolName('fx', 'echo'))).toBe(true)
    expect(matches('mcp__fx__*', mcpToolName('fx', 'echo'))).toBe(true)
    expect(matches('mcp__fx__echo', mcpToolName('fx', 'crash'))).toBe(false)
    expect(matches('mcp__fx', mcpToolName('fxy', 'echo'))).toBe(false)
    const rules = {
      deny: parsePermissionRules(['mcp__fx__crash']),
      ask: [],
      allow: parsePermissionRules(['mcp__fx']),
    }
    expect(evaluateRules(rules, subject(mcpToolName('fx', 'crash')))?.behavior).toBe('deny')
    expect(evaluateRules(rules, subject(mcpToolName('fx', 'echo')))?.behavior).toBe('allow')
  })
})

describe('unloading', () => {
  it(
    "removes the provider: the agent's next request offers no MCP tools",
    async () => {
      const { harness, model } = await start({
        config: { mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER] } } },
        script: [{ text: 'one' }, { text: 'two' }],
      })
      const agent = await harness.agents.create({ sessionId: 'unload', meta: { cwd: tempDir() } })
      await agent.prompt('hi')
      expect(offered(model.requests[0]!)).toContain('mcp__fx__echo')
      const fibers = [...(harness.ctx.registry.get(mcpToolsPlugin)?.fibers ?? [])]
      expect(fibers.length).toBe(1)
      await fibers[0]!.dispose()
      await agent.prompt('again')
      expect(offered(model.requests[1]!).some((name) => name.startsWith('mcp__'))).toBe(false)
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
