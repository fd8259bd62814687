// The composition root: which plugins a config loads, and that disposing the harness
// unloads them all.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
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
      ['bash', 'job_kill', 'job_output', 'skill', 'subagent', ...FS_TOOL_NAMES].sort(),
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
})
