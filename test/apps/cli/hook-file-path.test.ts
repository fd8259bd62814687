// Claude Code hooks see `tool_input.file_path` absolute for Write and Edit, as Claude Code sends
// it, even when the model gave a path relative to the working directory.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, runCli, useModelWorlds } from './cli.js'
import { projectHooks } from './project-hooks.js'

const makeDir = useTempDirs('dsh-cli-hook-path-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

describe('hook tool payloads', () => {
  it('carry an absolute file_path for Write and Edit', async () => {
    const w = await startWorld([
      { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'one\n' } }] },
      {
        toolCalls: [
          { name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } },
        ],
      },
      { text: 'done' },
    ])
    const out = join(w.project, 'payloads.jsonl')
    const record = { type: 'command', command: `cat >> ${out}; echo >> ${out}` }
    projectHooks(w.project, {
      PreToolUse: [{ matcher: 'Write|Edit', hooks: [record] }],
      PostToolUse: [{ matcher: 'Write|Edit', hooks: [record] }],
    })
    const run = await runCli(['run', '--trust-project', '--permission-mode', 'bypassPermissions', 'go'], {
      env: w.env,
      cwd: w.project,
    })
    expect(run.code, run.stderr).toBe(0)
    const payloads = jsonLines(readFileSync(out, 'utf8'))
    expect(payloads.map((p) => `${p.hook_event_name} ${p.tool_name}`)).toEqual([
      'PreToolUse Write',
      'PostToolUse Write',
      'PreToolUse Edit',
      'PostToolUse Edit',
    ])
    for (const payload of payloads)
      expect(payload.tool_input).toMatchObject({ file_path: join(w.project, 'a.txt') })
    expect(readFileSync(join(w.project, 'a.txt'), 'utf8')).toBe('two\n')
  })
})
