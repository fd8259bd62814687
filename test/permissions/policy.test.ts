// Permission modes and rules: the pure decision for each mode and tool kind, and the
// policy service through a real harness (headless asks become denials that say so).

import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { WebToolsStandIn } from '../../src/llm/index.js'
import {
  decideToolPermission,
  EMPTY_RULE_SET,
  exitPlanModeToolPlugin,
  type PermissionMode,
  type PermissionRuleSet,
  parsePermissionRules,
} from '../../src/permissions/index.js'
import { ToolRegistry } from '../../src/tools/index.js'
import { fingerprintProjectConfig, ProjectTrustStore } from '../../src/trust/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { FIXTURE_SERVER, SERVER_TEST_TIMEOUT_MS } from '../support/mcp-servers.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-perm-')
const start = useTestHarnesses()

function rules(set: Partial<Record<'allow' | 'ask' | 'deny', string[]>>): PermissionRuleSet {
  return {
    allow: parsePermissionRules(set.allow ?? []),
    ask: parsePermissionRules(set.ask ?? []),
    deny: parsePermissionRules(set.deny ?? []),
  }
}

const ROOT = '/work/proj'
const decide = (mode: PermissionMode, tool: string, input: Record<string, unknown>, set = EMPTY_RULE_SET) =>
  decideToolPermission({ mode, rules: set, subject: { tool, input, cwd: ROOT }, projectRoot: ROOT }).behavior

describe('decideToolPermission', () => {
  const edit = { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }
  const outside = { file_path: '/etc/hosts', content: 'x' }
  const bash = { command: 'npm test' }
  const read = { file_path: 'src/a.ts' }

  it.each([
    // mode, read, edit inside, edit outside, bash, mcp, web fetch and search
    ['auto', 'allow', 'allow', 'ask', 'allow', 'allow', 'allow'],
    ['default', 'allow', 'ask', 'ask', 'ask', 'ask', 'ask'],
    ['acceptEdits', 'allow', 'allow', 'ask', 'ask', 'ask', 'ask'],
    ['plan', 'allow', 'deny', 'deny', 'deny', 'deny', 'ask'],
    ['bypassPermissions', 'allow', 'allow', 'allow', 'allow', 'allow', 'allow'],
  ] as const)('%s mode', (mode, r, e, o, b, m, w) => {
    expect([
      decide(mode, 'Read', read),
      decide(mode, 'Edit', edit),
      decide(mode, 'Write', outside),
      decide(mode, 'Bash', bash),
      decide(mode, 'mcp__db__query', {}),
      decide(mode, 'WebFetch', { url: 'https://example.com/x' }),
      decide(mode, 'WebSearch', { query: 'x' }),
    ]).toEqual([r, e, o, b, m, w, w])
  })

  it('deny wins over everything, bypass included; ask and allow rules apply per kind', () => {
    const set = rules({
      deny: ['Bash(git push *)', 'Read(./.env)', 'mcp__db'],
      ask: ['Edit(src/secret/**)'],
      allow: ['Bash(npm test *)', 'Edit(/etc/**)', 'WebFetch(domain:example.com)'],
    })
    expect(decide('bypassPermissions', 'Bash', { command: 'git push origin main' }, set)).toBe('deny')
    expect(decide('auto', 'Read', { file_path: '.env' }, set)).toBe('deny')
    expect(decide('auto', 'mcp__db__query', {}, set)).toBe('deny')
    expect(decide('auto', 'Edit', { file_path: 'src/secret/k.ts' }, set)).toBe('ask')
    expect(decide('default', 'Bash', { command: 'npm test -- --watch=false' }, set)).toBe('allow')
    expect(decide('default', 'Bash', { command: 'npm test && rm -rf /' }, set)).toBe('ask')
    expect(decide('default', 'WebFetch', { url: 'https://example.com/x' }, set)).toBe('allow')
    expect(decide('plan', 'WebFetch', { url: 'https://example.com/x' }, set)).toBe('allow')
    expect(decide('default', 'WebFetch', { url: 'https://example.org/x' }, set)).toBe('ask')
    // An allow rule covers a write outside the project.
    expect(
      decide('auto', 'Write', { file_path: '/etc/hosts', content: '' }, rules({ allow: ['Edit(//etc/**)'] })),
    ).toBe('allow')
  })
})

describe("writes to the project's configuration", () => {
  const write = (file_path: string) => ({ file_path, content: '{}' })
  const everything = rules({ allow: ['Edit', 'Write', 'Edit(**)', 'Write(/**)'] })

  it('ask in every mode but bypass, whatever the allow rules; deny rules still win', () => {
    for (const path of [
      '.mcp.json',
      '.claude/settings.json',
      '.claude/skills/x/SKILL.md',
      'AGENTS.md',
      '.dsh/x',
    ]) {
      for (const mode of ['auto', 'default', 'acceptEdits'] as const) {
        expect(decide(mode, 'Write', write(path), everything)).toBe('ask')
        expect(decide(mode, 'Edit', { ...write(`${ROOT}/${path}`), old_string: 'a' }, everything)).toBe('ask')
      }
      expect(decide('bypassPermissions', 'Write', write(path))).toBe('allow')
      expect(decide('plan', 'Write', write(path))).toBe('deny')
      expect(decide('bypassPermissions', 'Write', write(path), rules({ deny: ['Write(/.mcp.json)'] }))).toBe(
        path === '.mcp.json' ? 'deny' : 'allow',
      )
    }
    // Look-alikes deeper in the project are ordinary files.
    expect(decide('auto', 'Write', write('src/.mcp.json'))).toBe('allow')
    expect(decide('auto', 'Write', write('docs/AGENTS.md.bak'))).toBe('allow')
  })

  it('a symlink into .claude counts as .claude', () => {
    const { cwd } = project()
    mkdirSync(join(cwd, '.claude'))
    symlinkSync(join(cwd, '.claude'), join(cwd, 'innocent'))
    const decision = decideToolPermission({
      mode: 'auto',
      rules: EMPTY_RULE_SET,
      subject: { tool: 'Write', input: write('innocent/settings.json'), cwd },
      projectRoot: cwd,
    })
    expect(decision).toMatchObject({ behavior: 'ask', configWrite: true })
    expect(decision.behavior === 'ask' && decision.reason).toContain('(.claude)')
  })

  it('headless refuses the write and says only bypass writes it; an asking front end writes on a yes', async () => {
    const { cwd } = project()
    const plant = { toolCalls: [{ name: 'write', arguments: { file_path: '.mcp.json', content: '{}' } }] }
    const headless = await start({
      config: { permissions: { mode: 'acceptEdits', allow: ['Write'] } },
      script: [plant, { text: 'done' }],
    })
    const agent = await headless.harness.agents.create({ sessionId: 'cfg', meta: { cwd } })
    await agent.prompt('plant it')
    const [refused] = resultsOf(agent.session.events)
    expect(refused).toContain("changes the project's configuration (.mcp.json)")
    expect(refused).toContain('only --permission-mode bypassPermissions writes it without asking')
    expect(existsSync(join(cwd, '.mcp.json'))).toBe(false)

    const asking = await start({
      permissions: { canAsk: true, frontEnd: 'interactive' },
      script: [plant, { text: 'done' }],
    })
    const asked: string[] = []
    asking.harness.ctx.on('tools/approve', (_call, reason) => {
      asked.push(reason)
      return true
    })
    const chat = await asking.harness.agents.create({ sessionId: 'cfg2', meta: { cwd } })
    await chat.prompt('plant it')
    expect(asked).toEqual([expect.stringContaining("changes the project's configuration (.mcp.json)")])
    expect(readFileSync(join(cwd, '.mcp.json'), 'utf8')).toBe('{}')
  })
})

/** A project folder (a `.git` marker) inside a temporary folder. */
function project() {
  const dir = tempDir()
  const cwd = join(dir, 'proj')
  mkdirSync(join(cwd, '.git'), { recursive: true })
  return { dir, cwd }
}

/** The tool results of one turn, in call order. */
const resultsOf = (events: readonly { type: string; data: unknown }[]) =>
  events.filter((e) => e.type === 'tool/result').map((e) => (e.data as { content: string }).content)

describe('leaving plan mode (ExitPlanMode)', () => {
  const plan = { plan: '1. edit a.ts' }
  it('asks in plan mode (the user decides), unless a rule decides; elsewhere it is a no-op call', () => {
    expect(decide('plan', 'ExitPlanMode', plan)).toBe('ask')
    expect(decide('plan', 'ExitPlanMode', plan, rules({ allow: ['ExitPlanMode'] }))).toBe('allow')
    expect(decide('plan', 'ExitPlanMode', plan, rules({ deny: ['ExitPlanMode'] }))).toBe('deny')
    for (const mode of ['auto', 'default', 'acceptEdits', 'bypassPermissions'] as const)
      expect(decide(mode, 'ExitPlanMode', plan)).toBe('allow')
  })

  it("a yes leaves plan mode for the mode before it, and the plan's edits run; a no stays", async () => {
    const { cwd } = project()
    const answers: boolean[] = [false, true]
    const asked: string[] = []
    const { harness } = await start({
      permissions: { mode: 'acceptEdits', frontEnd: 'interactive', canAsk: true },
      script: [
        { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: '1. write a.txt' } }] },
        { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: '1. write a.txt, then check it' } }] },
        { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'planned\n' } }] },
        { text: 'done' },
      ],
    })
    harness.ctx.on('tools/approve', (call) => {
      asked.push(`${call.name}: ${(call.input as { plan: string }).plan}`)
      return answers.shift()
    })
    const agent = await harness.agents.create({ sessionId: 'plan-exit', meta: { cwd } })
    const changes: string[] = []
    harness.ctx.on('permissions/mode-changed', (_agent, mode) => {
      changes.push(mode)
    })
    harness.ctx.permissions.setMode(agent, 'plan')
    await agent.prompt('plan it, then do it')
    expect(asked).toEqual(['exit_plan_mode: 1. write a.txt', 'exit_plan_mode: 1. write a.txt, then check it'])
    const results = resultsOf(agent.session.events)
    expect(results[0]).toMatch(/^Tool call denied: the model presents its plan/)
    expect(results[1]).toContain(
      'The user approved your plan. Plan mode is off (permission mode: acceptEdits)',
    )
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('planned\n')
    expect(changes).toEqual(['plan', 'acceptEdits'])
    expect(harness.ctx.permissions.modeOf(agent)).toBe('acceptEdits')
  })

  it('the tool goes with its plugin', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry).await()
    const fiber = ctx.plugin(exitPlanModeToolPlugin)
    await fiber.await()
    expect(ctx.tools.names()).toContain('exit_plan_mode')
    await fiber.dispose()
    expect(ctx.tools.names()).not.toContain('exit_plan_mode')
  })

  it('headless, plan mode stays on and the model is told why; begun in plan mode, a yes gives default', async () => {
    const { cwd } = project()
    const headless = await start({
      permissions: { mode: 'plan' },
      script: [{ toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: 'p' } }] }, { text: 'ok' }],
    })
    const stuck = await headless.harness.agents.create({ sessionId: 'plan-headless', meta: { cwd } })
    await stuck.prompt('go')
    expect(resultsOf(stuck.session.events)[0]).toContain('this run cannot ask for approval')
    expect(headless.harness.ctx.permissions.modeOf(stuck)).toBe('plan')

    const asking = await start({
      permissions: { mode: 'plan', frontEnd: 'interactive', canAsk: true },
      script: [{ toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: 'p' } }] }, { text: 'ok' }],
    })
    asking.harness.ctx.on('tools/approve', () => true)
    const agent = await asking.harness.agents.create({ sessionId: 'plan-begun', meta: { cwd } })
    await agent.prompt('go')
    expect(asking.harness.ctx.permissions.modeOf(agent)).toBe('default')
  })
})

describe('the policy in a harness', () => {
  it('headless: a write outside the project is denied and the tool result says why', async () => {
    const { dir, cwd } = project()
    const target = join(dir, 'outside.txt')
    const { harness } = await start({
      script: [
        { toolCalls: [{ name: 'write', arguments: { file_path: target, content: 'x' } }] },
        { text: 'done' },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'outside', meta: { cwd } })
    await agent.prompt('write outside')
    const result = agent.session.events.find((e) => e.type === 'tool/result')!.data as { content: string }
    expect(result.content).toContain('writes outside the project')
    expect(result.content).toContain('this run cannot ask for approval')
    expect(() => readFileSync(target)).toThrow()
  })

  it('plan mode refuses edits and tells the model; flags deny and allow by rule', async () => {
    const { cwd } = project()
    const { harness, model } = await start({
      script: [
        {
          toolCalls: [
            { name: 'write', arguments: { file_path: 'a.txt', content: 'x' } },
            { name: 'ls', arguments: {} },
          ],
        },
        { text: 'plan: write a.txt' },
      ],
    })
    harness.ctx.permissions.setMode(await harness.agents.create({ sessionId: 'p', meta: { cwd } }), 'plan')
    const agent = harness.agents.get('p')!
    await agent.prompt('do it')
    const results = agent.session.events
      .filter((e) => e.type === 'tool/result')
      .map((e) => e.data as { content: string })
    expect(results[0]!.content).toMatch(/^Tool call denied: plan mode is on/)
    expect(results[1]!.content).toContain('./')
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('Plan mode is on')
  })

  it('project allow rules count only in a trusted folder; project deny rules always', async () => {
    const { cwd } = project()
    mkdirSync(join(cwd, '.claude'))
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(echo *)'], deny: ['Bash(rm *)'] } }),
    )
    const home = tempDir()
    const { harness } = await start({ home, trust: { frontEnd: 'headless' } })
    const untrusted = await harness.agents.create({ sessionId: 'u', meta: { cwd } })
    // Headless never trusts a folder silently (issue 24): --trust-project does.
    expect(harness.ctx.permissions.stateOf(untrusted).trusted).toBe(false)
    expect(harness.ctx.permissions.stateOf(untrusted).ignoredAllow).toBe(1)
    const granted = await start({ home: tempDir(), trust: { frontEnd: 'headless', granted: true } })
    const flagged = await granted.harness.agents.create({ sessionId: 'g', meta: { cwd } })
    expect(granted.harness.ctx.permissions.stateOf(flagged).trusted).toBe(true)
    const interactive = await start({
      home,
      permissions: { mode: 'default', frontEnd: 'interactive', canAsk: true },
    })
    const agent = await interactive.harness.agents.create({ sessionId: 'i', meta: { cwd } })
    const state = interactive.harness.ctx.permissions.stateOf(agent)
    expect(state.trusted).toBe(false)
    expect(state.ignoredAllow).toBe(1)
    const permissions = interactive.harness.ctx.permissions
    expect(permissions.decide(agent, 'Bash', { command: 'echo hi' }).behavior).toBe('ask')
    expect(permissions.decide(agent, 'Bash', { command: 'rm -rf x' }).behavior).toBe('deny')
    new ProjectTrustStore(home).trust(cwd, Date.now(), fingerprintProjectConfig(cwd))
    const trusted = await interactive.harness.agents.create({ sessionId: 't', meta: { cwd } })
    expect(permissions.decide(trusted, 'Bash', { command: 'echo hi' }).behavior).toBe('allow')
  })

  const CANNOT_ASK = 'this run cannot ask for approval, so the call was not made'

  it('acceptEdits headless: the edit runs, bash is denied and the result says why', async () => {
    const { cwd } = project()
    const { harness } = await start({
      config: { permissions: { mode: 'acceptEdits' } },
      script: [
        {
          toolCalls: [
            { name: 'write', arguments: { file_path: 'a.txt', content: 'a\n' } },
            { name: 'bash', arguments: { command: 'echo ran > ran.txt' } },
          ],
        },
        { text: 'done' },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'accept', meta: { cwd } })
    await agent.prompt('go')
    const [written, bash] = resultsOf(agent.session.events)
    expect(written).not.toMatch(/denied/)
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('a\n')
    expect(bash).toContain(`Bash needs approval in acceptEdits mode (no allow rule covers it); ${CANNOT_ASK}`)
    expect(() => readFileSync(join(cwd, 'ran.txt'))).toThrow()
  })

  it(
    'every rule kind from the config on real calls in default mode: Bash prefix, Read path, MCP server, WebFetch domain, ask',
    async () => {
      const { cwd } = project()
      writeFileSync(
        join(cwd, 'package.json'),
        JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo tested > tested.txt' } }),
      )
      writeFileSync(join(cwd, '.env'), 'TOKEN=hidden\n')
      writeFileSync(join(cwd, 'notes.txt'), 'notes\n')
      const allowedUrl = 'https://docs.example.org/guide'
      const web = new WebToolsStandIn({
        apiKey: 'test-key',
        pages: {
          [allowedUrl]: { title: 'Guide', content: 'the guide text' },
          'https://other.example.com/x': { title: 'Other', content: 'other text' },
        },
      })
      const { harness } = await start({
        webTools: web,
        config: {
          web: { fetch: 'deepseek' },
          mcpServers: { fx: { command: 'node', args: [FIXTURE_SERVER] } },
          permissions: {
            mode: 'default',
            // Web fetches ask in default mode, as in Claude Code: a domain allow rule lets one run.
            allow: ['Bash(npm test:*)', 'WebFetch(domain:docs.example.org)'],
            deny: ['Read(./.env)', 'mcp__fx__*'],
            ask: ['Read(./notes.txt)', 'WebFetch(domain:other.example.com)'],
          },
        },
        script: [
          {
            toolCalls: [
              { name: 'bash', arguments: { command: 'npm test' } },
              { name: 'web_fetch', arguments: { url: allowedUrl } },
              { name: 'web_fetch', arguments: { url: 'https://other.example.com/x' } },
              { name: 'read', arguments: { file_path: '.env' } },
              { name: 'mcp__fx__echo', arguments: { text: 'hi' } },
              { name: 'read', arguments: { file_path: 'notes.txt' } },
            ],
          },
          { text: 'done' },
        ],
      })
      const agent = await harness.agents.create({ sessionId: 'rules', meta: { cwd } })
      await agent.prompt('go')
      const [npm, fetched, other, env, mcp, notes] = resultsOf(agent.session.events)
      expect(npm).not.toMatch(/denied/)
      expect(readFileSync(join(cwd, 'tested.txt'), 'utf8')).toBe('tested\n')
      expect(fetched).toContain('the guide text')
      expect(other).toContain(
        `the permission rule WebFetch(domain:other.example.com) asks for approval; ${CANNOT_ASK}`,
      )
      expect(other).not.toContain('other text')
      expect(env).toBe('Tool call denied: denied by the permission rule Read(./.env)')
      expect(mcp).toBe('Tool call denied: denied by the permission rule mcp__fx__*')
      expect(notes).toContain(`the permission rule Read(./notes.txt) asks for approval; ${CANNOT_ASK}`)
      expect(JSON.stringify(agent.session.events)).not.toContain('TOKEN=hidden')
    },
    SERVER_TEST_TIMEOUT_MS,
  )
})
