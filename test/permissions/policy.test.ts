// Permission modes and rules: the pure decision for each mode and tool kind, and the
// policy service through a real harness (headless asks become denials that say so).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  decideToolPermission,
  EMPTY_RULE_SET,
  type PermissionMode,
  type PermissionRuleSet,
  parsePermissionRules,
} from '../../src/permissions/index.js'
import { ProjectTrustStore } from '../../src/trust/index.js'
import { useTestHarnesses } from '../support/harness.js'
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
    // mode, read, edit inside, edit outside, bash, mcp
    ['auto', 'allow', 'allow', 'ask', 'allow', 'allow'],
    ['default', 'allow', 'ask', 'ask', 'ask', 'ask'],
    ['acceptEdits', 'allow', 'allow', 'ask', 'ask', 'ask'],
    ['plan', 'allow', 'deny', 'deny', 'deny', 'deny'],
    ['bypassPermissions', 'allow', 'allow', 'allow', 'allow', 'allow'],
  ] as const)('%s mode', (mode, r, e, o, b, m) => {
    expect([
      decide(mode, 'Read', read),
      decide(mode, 'Edit', edit),
      decide(mode, 'Write', outside),
      decide(mode, 'Bash', bash),
      decide(mode, 'mcp__db__query', {}),
    ]).toEqual([r, e, o, b, m])
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
    // An allow rule covers a write outside the project.
    expect(
      decide('auto', 'Write', { file_path: '/etc/hosts', content: '' }, rules({ allow: ['Edit(//etc/**)'] })),
    ).toBe('allow')
  })
})

describe('the policy in a harness', () => {
  function project() {
    const dir = tempDir()
    const cwd = join(dir, 'proj')
    mkdirSync(join(cwd, '.git'), { recursive: true })
    return { dir, cwd }
  }

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
    const policy = harness.ctx.permissions
    const untrusted = await harness.agents.create({ sessionId: 'u', meta: { cwd } })
    // A headless front end trusts (Claude Code's non-interactive rule); chat asks first.
    expect(policy.stateOf(untrusted).trusted).toBe(true)
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
    new ProjectTrustStore(home).trust(cwd)
    const trusted = await interactive.harness.agents.create({ sessionId: 't', meta: { cwd } })
    expect(permissions.decide(trusted, 'Bash', { command: 'echo hi' }).behavior).toBe('allow')
  })
})
