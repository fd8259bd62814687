// The composition root: which plugins a config loads, and that disposing the harness
// unloads them all.

import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { isDshError } from '../../src/core/errors.js'
import { createHarness } from '../../src/harness/index.js'
import { ShellErrorCode } from '../../src/shell/index.js'
import { FS_TOOL_NAMES } from '../../src/tools/fs/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-compose-')
const startTestHarness = useTestHarnesses()

describe('createHarness', () => {
  it('loads the shell, the tools, the DSH_* registry and the agent registry by default', async () => {
    const test = await startTestHarness({})
    const { ctx } = test.harness
    expect(ctx.get('tools')!.names().sort()).toEqual(
      [
        'bash',
        'exit_plan_mode',
        'job_kill',
        'job_output',
        'skill',
        'subagent',
        'web_fetch',
        'terminal_start',
        'terminal_send',
        'terminal_read',
        'terminal_resize',
        'terminal_kill',
        'terminal_list',
        ...FS_TOOL_NAMES,
      ].sort(),
    )
    expect(
      ctx
        .get('shellEnv')!
        .list()
        .map((declaration) => declaration.key),
    ).toEqual(expect.arrayContaining(['DSH_HOME', 'DSH_SHELL', 'DSH_SESSION_ID', 'DSH_SESSION_JSONL']))
    expect(
      ctx.get('sessionPersistence')!.locate({ version: 1, id: 'x', createdAt: 0, delegationDepth: 0 }),
    ).toEqual({
      kind: 'jsonl',
      path: join(test.home, 'sessions', '_no-cwd', 'x.jsonl'),
    })
  })

  it('loads hook bridges and the ACP sub-agent tool only when configured', async () => {
    const dir = tempDir()
    const settings = join(dir, 'settings.json')
    writeFileSync(
      settings,
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }),
    )
    const test = await startTestHarness({
      config: {
        hooks: { claudeCode: [settings], codex: [settings] },
        subagents: { acp: { command: 'dsh', args: ['acp'] } },
      },
    })
    const { ctx } = test.harness
    expect(ctx.get('tools')!.names()).toContain('acp_subagent')
    const stopListeners = () =>
      (ctx.events as unknown as { _hooks: Record<string, unknown[]> })._hooks['agent/turn-stopping']
    expect(stopListeners()?.length).toBe(2)
    await test.harness.dispose()
    expect(stopListeners()?.length ?? 0).toBe(0)
    expect(ctx.get('tools')).toBeUndefined()
    expect(ctx.get('agents')).toBeUndefined()
  })

  it('subagents.enabled: false offers the model no subagent tool, and a call to it runs nothing', async () => {
    const test = await startTestHarness({
      config: { subagents: { enabled: false } },
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'x', prompt: 'hello' } }] },
        { text: 'ok' },
      ],
    })
    expect(test.harness.ctx.get('tools')!.names()).not.toContain('subagent')
    const agent = await test.harness.agents.create({ sessionId: 'nosub', meta: { cwd: tempDir() } })
    await agent.prompt('delegate')
    const offered = test.model.requests[0]!.tools!.map((tool) => tool.function.name)
    expect(offered).toContain('bash')
    expect(offered).not.toContain('subagent')
    const result = agent.session.events.find((event) => event.type === 'tool/result')!.data as {
      content: string
    }
    expect(result.content).toMatch(/^Unknown tool: subagent\./)
    expect(test.harness.agents.list().map((a) => a.id)).toEqual(['nosub'])
  })

  it('refuses to start when a sandbox is asked for and bwrap is missing: one line, nothing written', async () => {
    const home = tempDir()
    const config = resolveConfig(
      validateConfig('test-config', {
        dshHome: home,
        sandbox: 'workspace-write',
        sandboxBwrapPath: join(home, 'no-such-bwrap'),
      }),
      {},
    )
    const before = readdirSync(home).sort()
    const error = await createHarness({ config, model: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' } }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(isDshError(error, ShellErrorCode.SandboxUnavailable)).toBe(true)
    const message = (error as Error).message
    expect(message).toBe(
      `sandbox: bubblewrap not found at ${join(home, 'no-such-bwrap')} (install the bubblewrap package, set sandboxBwrapPath, or use sandbox: off)`,
    )
    expect((error as { userFacing?: boolean }).userFacing).toBe(true)
    expect(readdirSync(home).sort()).toEqual(before)
  })

  it('refuses a bwrap that exists but cannot build a sandbox, naming it', async () => {
    const home = tempDir()
    const config = resolveConfig(
      validateConfig('test-config', { dshHome: home, sandbox: 'read-only', sandboxBwrapPath: '/bin/false' }),
      {},
    )
    const error = await createHarness({ config, model: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' } }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(isDshError(error, ShellErrorCode.SandboxUnavailable)).toBe(true)
    expect((error as Error).message).toMatch(/^sandbox: \/bin\/false cannot run here \(exit 1; /)
    expect((error as Error).message).not.toContain('\n')
  })
})
