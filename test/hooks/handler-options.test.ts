// Handler options and payload facts through the real loop: `async` hooks run but decide
// nothing, `once` hooks run once per session, and `permission_mode` is the agent's real mode.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PermissionPolicy } from '../../src/permissions/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { readRecords, useRigs, writeRecorder } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-options-')
const rig = useRigs('claude-code')

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })

describe('handler options', () => {
  it('an async hook runs in the background and decides nothing, even when it exits 2', async () => {
    const dir = tempDir()
    const out = join(dir, 'async.jsonl')
    const blocker = writeRecorder(dir, 'blocker.sh', out, 'echo "would block" >&2\nexit 2')
    const r = await rig({
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: blocker, async: true }] }],
      },
    })
    const agent = await r.agents.create({ sessionId: 'async-hook', meta: { cwd: r.cwd } })
    const result = await agent.prompt('go')
    expect(result.reason).toBe('completed')
    expect(existsSync(join(r.cwd, 'ran'))).toBe(true)
    await until(() => readRecords(out).length === 1, 15_000, 'the async hook to run')
  })

  it('a once hook runs for the first matching call of a session only', async () => {
    const dir = tempDir()
    const out = join(dir, 'once.jsonl')
    const recorder = writeRecorder(dir, 'once.sh', out)
    const r = await rig({
      dir,
      script: [bash('true'), bash('true'), { text: 'ok' }],
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: recorder, once: true }] }],
      },
    })
    const agent = await r.agents.create({ sessionId: 'once-hook', meta: { cwd: r.cwd } })
    expect((await agent.prompt('go')).reason).toBe('completed')
    expect(readRecords(out)).toHaveLength(1)
  })
})

describe('permission_mode', () => {
  it("is the agent's real permission mode, and dsh's auto is reported as default", async () => {
    const dir = tempDir()
    const out = join(dir, 'modes.jsonl')
    const recorder = writeRecorder(dir, 'mode.sh', out)
    const r = await rig({
      dir,
      script: [bash('true'), { text: 'one' }, bash('true'), { text: 'two' }],
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: recorder }] }] },
    })
    const policy = r.root.plugin(PermissionPolicy, { mode: 'bypassPermissions' })
    await policy.await()
    const agent = await r.agents.create({ sessionId: 'mode-hook', meta: { cwd: r.cwd } })
    expect((await agent.prompt('first')).reason).toBe('completed')
    r.root.get('permissions')!.setMode(agent, 'auto')
    expect((await agent.prompt('second')).reason).toBe('completed')
    expect(readRecords(out).map((run) => run.payload.permission_mode)).toEqual([
      'bypassPermissions',
      'default',
    ])
    await policy.dispose()
  })
})
