// The Codex dialect: transcript_path string | null from `locate`, model, permission_mode,
// turn_id, `tool_input.command` for bash, and always-regex matchers.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir.js'
import { oneHook, readRecords, useRigs, writeRecorder } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-codex-')
const rig = useRigs('codex')

function everyEvent(command: string) {
  return Object.assign(
    {},
    ...['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'].map((event) =>
      oneHook(event, command, { matcher: event.endsWith('ToolUse') ? 'as' : '' }),
    ),
  )
}

describe('codex payloads', () => {
  it('carry the live session id, exactly locate(header).path, model, permission_mode and turn_id', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo codex-out', description: 'say it' } }] },
        { text: 'done' },
      ],
      hooks: everyEvent(recorder),
    })
    const agent = await r.agents.create({ sessionId: 'codex-jsonl', meta: { cwd: r.cwd } })
    const location = r.root.get('sessionPersistence')!.locate(agent.session.header)!
    expect(existsSync(location.path)).toBe(false)
    await agent.prompt('run it')
    const runs = readRecords(out)
    const payloads = runs.map((run) => run.payload)
    expect(payloads.map((payload) => payload.hook_event_name)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'Stop',
    ])
    for (const payload of payloads) {
      expect(payload).toMatchObject({
        session_id: 'codex-jsonl',
        transcript_path: location.path,
        cwd: r.cwd,
        model: 'deepseek-flash',
        permission_mode: 'default',
      })
    }
    // Hooks never force a flush: before the first durability checkpoint (the model request)
    // neither SessionStart nor UserPromptSubmit finds the file; the turn's checkpoints make it.
    expect(runs[0]!.transcriptExists).toBe(false)
    expect(runs[1]!.transcriptExists).toBe(false)
    expect(runs.slice(2).map((run) => run.transcriptExists)).toEqual([true, true, true])
    expect(payloads[0]).toMatchObject({ source: 'startup' })
    expect(payloads[0]).not.toHaveProperty('turn_id')
    const turnIds = new Set(payloads.slice(1).map((payload) => payload.turn_id))
    expect(turnIds.size).toBe(1)
    expect(typeof [...turnIds][0]).toBe('string')
    expect(payloads[1]).toMatchObject({ prompt: 'run it' })
    expect(payloads[2]).toMatchObject({ tool_name: 'Bash', tool_use_id: 'call_1' })
    expect(payloads[2]!.tool_input).toEqual({ command: 'echo codex-out' })
    expect(payloads[3]!.tool_response).toContain('codex-out')
    expect(payloads[4]).toMatchObject({ stop_hook_active: false, last_assistant_message: 'done' })
  })

  it('name file changes apply_patch with the patch text in tool_input.command, as Codex does', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      fsTools: true,
      script: [
        { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'one\ntwo\n' } }] },
        {
          toolCalls: [
            { name: 'edit', arguments: { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' } },
          ],
        },
        {
          toolCalls: [
            {
              name: 'multi_edit',
              arguments: {
                file_path: 'a.txt',
                edits: [
                  { old_string: 'one', new_string: 'ONE' },
                  { old_string: 'TWO', new_string: '2' },
                ],
              },
            },
          ],
        },
        { text: 'done' },
      ],
      // Codex's documented matcher for file changes.
      hooks: oneHook('PreToolUse', recorder, { matcher: '^apply_patch$' }),
    })
    const agent = await r.agents.create({ sessionId: 'codex-patch', meta: { cwd: r.cwd } })
    await agent.prompt('change it')
    const payloads = readRecords(out).map((run) => run.payload)
    expect(payloads.map((payload) => payload.tool_name)).toEqual([
      'apply_patch',
      'apply_patch',
      'apply_patch',
    ])
    expect(payloads.map((payload) => payload.tool_input)).toEqual([
      { command: '*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch' },
      { command: '*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch' },
      {
        command: '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n@@\n-TWO\n+2\n*** End Patch',
      },
    ])
    expect(readFileSync(join(r.cwd, 'a.txt'), 'utf8')).toBe('ONE\n2\n')
  })

  it('send transcript_path null with SQLite', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({ dir, backend: 'sqlite', script: [{ text: 'hi' }], hooks: everyEvent(recorder) })
    const agent = await r.agents.create({ sessionId: 'codex-sqlite', meta: { cwd: r.cwd } })
    await agent.prompt('hello')
    const payloads = readRecords(out).map((run) => run.payload)
    expect(payloads).toHaveLength(3)
    for (const payload of payloads) {
      expect(payload).toMatchObject({ session_id: 'codex-sqlite', transcript_path: null })
    }
  })

  it('fires SessionStart for sub-agent sessions too, and no Claude Code-only events', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'd', prompt: 'p' } }] },
        { text: 'child' },
        { text: 'parent' },
      ],
      hooks: { ...oneHook('SessionStart', recorder), ...oneHook('SubagentStart', recorder) },
    })
    const agent = await r.agents.create({ sessionId: 'codex-parent', meta: { cwd: r.cwd } })
    await agent.prompt('delegate')
    const ids = readRecords(out).map((run) => run.payload.session_id as string)
    expect(ids).toHaveLength(2)
    expect(ids[0]).toBe('codex-parent')
    expect(ids[1]!.startsWith('codex-parent-sub-')).toBe(true)
    // An event Codex cannot fire is said once, never dropped without a word.
    expect(r.warnings.filter((warning) => warning.includes('SubagentStart'))).toHaveLength(1)
  })
})
