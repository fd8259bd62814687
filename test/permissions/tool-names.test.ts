// Rules name tools by Claude Code's names or by dsh's own, as hook matchers do (`bash` ≡
// `Bash`, `write` ≡ `Write`), and a rule naming no known tool is refused where it is read —
// flag, config file, project settings — instead of matching nothing in silence.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { permissionFlags } from '../../src/apps/shared/options.js'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { matchesRule, parsePermissionRule } from '../../src/permissions/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-tool-names-')
const start = useTestHarnesses()

type Call = { name: string; arguments: Record<string, unknown> }

function project(): string {
  const cwd = join(tempDir(), 'proj')
  mkdirSync(join(cwd, '.git'), { recursive: true })
  return cwd
}

/** One headless turn making `calls`; answers the tool results in order. */
async function run(cwd: string, calls: Call[], options: Parameters<typeof start>[0] = {}): Promise<string[]> {
  const { harness } = await start({ ...options, script: [{ toolCalls: calls }, { text: 'done' }] })
  const agent = await harness.agents.create({ sessionId: `s-${Math.random()}`, meta: { cwd } })
  await agent.prompt('go')
  return agent.session.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)
}

describe("rules written with dsh's tool names", () => {
  it('--disallowed-tools bash and write deny those tools: nothing runs, nothing is written', async () => {
    const cwd = project()
    const results = await run(
      cwd,
      [
        { name: 'bash', arguments: { command: 'echo ran > ran.txt' } },
        { name: 'write', arguments: { file_path: 'w.txt', content: 'x' } },
      ],
      { permissions: { disallowedTools: ['bash', 'write'] } },
    )
    expect(results[0]).toContain('denied by the permission rule bash')
    expect(results[1]).toContain('denied by the permission rule write')
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false)
    expect(existsSync(join(cwd, 'w.txt'))).toBe(false)
  })

  it('a config deny rule bash(rm *) keeps rm from running, and lets other commands run', async () => {
    const cwd = project()
    writeFileSync(join(cwd, 'victim'), 'keep me\n')
    const results = await run(
      cwd,
      [
        { name: 'bash', arguments: { command: 'rm victim' } },
        { name: 'bash', arguments: { command: 'echo fine' } },
      ],
      { config: { permissions: { deny: ['bash(rm *)'] } } },
    )
    expect(results[0]).toContain('denied by the permission rule bash(rm *)')
    expect(existsSync(join(cwd, 'victim'))).toBe(true)
    expect(results[1]).toContain('fine')
  })

  it('a project settings deny rule in dsh names counts too; Task names the sub-agent tool', async () => {
    const cwd = project()
    mkdirSync(join(cwd, '.claude'))
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({
        permissions: { deny: ['web_fetch(domain:example.invalid)', 'Task', 'terminal_start'] },
      }),
    )
    const results = await run(cwd, [
      { name: 'web_fetch', arguments: { url: 'https://example.invalid/' } },
      { name: 'subagent', arguments: { description: 'x', prompt: 'hello' } },
      { name: 'terminal_start', arguments: { command: 'echo hi' } },
    ])
    expect(results[0]).toContain('denied by the permission rule web_fetch(domain:example.invalid)')
    expect(results[1]).toContain('denied by the permission rule Task')
    expect(results[2]).toContain('denied by the permission rule terminal_start')
  })
})

describe('a rule naming no known tool', () => {
  it('is refused when parsed, in one line naming the rule and the nearest name', () => {
    expect(() => parsePermissionRule('Bsh(rm *)')).toThrow(/"Bsh\(rm \*\)".*no tool is named Bsh/)
    expect(() => parsePermissionRule('BASH')).toThrow(/did you mean Bash/)
    const error = (() => {
      try {
        parsePermissionRule('reed(./.env)')
      } catch (caught) {
        return caught as Error
      }
      return undefined
    })()
    expect(error?.message).not.toContain('\n')
  })

  it('is refused as a flag, in a config file and in project settings', async () => {
    expect(() => permissionFlags({ disallowedTools: ['Bsh'] })).toThrow(/--disallowed-tools: .*"Bsh"/)
    expect(() =>
      resolveConfig(
        validateConfig('cfg.yaml', { permissions: { deny: ['bassh(rm *)'] } }),
        {},
        '/x/cfg.yaml',
      ),
    ).toThrow(/permissions\.deny\[0\].*"bassh\(rm \*\)"/)
    const cwd = project()
    mkdirSync(join(cwd, '.claude'))
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Reed(./.env)'] } }),
    )
    const { harness } = await start({})
    await expect(harness.agents.create({ sessionId: 'typo', meta: { cwd } })).rejects.toThrow(
      /settings\.json.*"Reed\(\.\/\.env\)"/,
    )
  })

  it('a former Claude Code name matches the tool it became: KillBash is KillShell (job_kill), Task is Agent', () => {
    const subject = (tool: string) => ({ tool, input: {}, cwd: '/p' })
    expect(matchesRule(parsePermissionRule('KillBash'), subject('KillShell'), 'any')).toBe(true)
    expect(matchesRule(parsePermissionRule('Task'), subject('Agent'), 'any')).toBe(true)
    expect(matchesRule(parsePermissionRule('KillBash'), subject('Bash'), 'any')).toBe(false)
  })

  it("accepts every Claude Code tool name, dsh's names, MCP names and wildcards that name a tool", () => {
    for (const text of [
      'NotebookEdit(x.ipynb)',
      'PowerShell',
      'TaskCreate',
      'LS',
      'BashOutput',
      'KillBash',
      'mcp__db',
      'mcp__db__query',
      'mcp__db__*',
      'todo_write',
      'lsp_hover',
      'terminal_send',
      'acp_subagent',
      'Web*',
    ]) {
      expect(() => parsePermissionRule(text), text).not.toThrow()
    }
    expect(() => parsePermissionRule('Nothing*')).toThrow(/no tool is named Nothing\*/)
  })

  it('every tool a harness can register is a name rules accept', async () => {
    const { harness } = await start({
      config: {
        terminals: { enabled: true },
        subagents: { acp: { command: 'dsh', args: ['acp'] } },
        lsp: {},
      },
    })
    const names = harness.ctx.get('tools')!.names()
    expect(names).toEqual(expect.arrayContaining(['bash', 'terminal_start', 'acp_subagent', 'lsp_hover']))
    for (const name of names) expect(() => parsePermissionRule(name), name).not.toThrow()
  })
})
