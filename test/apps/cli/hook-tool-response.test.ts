// PostToolUse hooks get `tool_response` for Write, Edit, MultiEdit and Read in Claude Code's
// shape (`filePath`, `content`, `structuredPatch`, `originalFile`, `type`, …), so hook scripts
// written for Claude Code that read e.g. `.tool_response.filePath` work unchanged.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect } from 'vitest'
import { findExecutable } from '../../../src/shell/index.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, runCli, useModelWorlds } from './cli.js'
import { projectHooks } from './project-hooks.js'

const makeDir = useTempDirs('dsh-cli-hook-response-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

describe('PostToolUse tool_response', () => {
  itRequires(findExecutable('jq') !== undefined, 'jq')(
    'has Claude Code fields for Write, Edit, Read and MultiEdit; a jq hook reads filePath',
    async () => {
      const w = await startWorld([
        { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'one\n' } }] },
        {
          toolCalls: [
            { name: 'edit', arguments: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } },
          ],
        },
        { toolCalls: [{ name: 'read', arguments: { file_path: 'b.txt', offset: 2, limit: 1 } }] },
        {
          toolCalls: [
            {
              name: 'multi_edit',
              arguments: {
                file_path: 'b.txt',
                edits: [
                  { old_string: 'alpha', new_string: 'ALPHA' },
                  { old_string: 'gamma', new_string: 'GAMMA' },
                ],
              },
            },
          ],
        },
        { toolCalls: [{ name: 'write', arguments: { file_path: 'b.txt', content: 'new\n' } }] },
        { text: 'done' },
      ])
      const a = join(w.project, 'a.txt')
      const b = join(w.project, 'b.txt')
      writeFileSync(b, 'alpha\nbeta\ngamma\n')
      const out = join(w.project, 'payloads.jsonl')
      const seen = join(w.project, 'seen.txt')
      // A hook as people write them for Claude Code: jq on stdin, the edited file's path.
      const script = join(w.project, 'seen.sh')
      writeFileSync(
        script,
        `#!/usr/bin/env bash\nset -euo pipefail\nf=$(jq -r '.tool_response.filePath // empty')\n[ -f "$f" ] && echo "$f" >> ${seen}\nexit 0\n`,
        { mode: 0o755 },
      )
      projectHooks(w.project, {
        PostToolUse: [
          {
            matcher: 'Write|Edit|MultiEdit|Read',
            hooks: [
              { type: 'command', command: `cat >> ${out}; echo >> ${out}` },
              { type: 'command', command: script },
            ],
          },
        ],
      })
      const run = await runCli(['run', '--trust-project', '--permission-mode', 'bypassPermissions', 'go'], {
        env: w.env,
        cwd: w.project,
      })
      expect(run.code, run.stderr).toBe(0)
      const payloads = jsonLines(readFileSync(out, 'utf8'))
      expect(payloads.map((p) => p.tool_name)).toEqual(['Write', 'Edit', 'Read', 'MultiEdit', 'Write'])
      const [create, edit, read, multi, update] = payloads.map((p) => p.tool_response)

      expect(create).toEqual({
        type: 'create',
        filePath: a,
        content: 'one\n',
        structuredPatch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ['+one'] }],
        originalFile: null,
      })
      expect(edit).toEqual({
        filePath: a,
        oldString: 'one',
        newString: 'two',
        originalFile: 'one\n',
        structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-one', '+two'] }],
        userModified: false,
        replaceAll: false,
      })
      expect(read).toEqual({
        type: 'text',
        file: { filePath: b, content: 'beta', numLines: 1, startLine: 2, totalLines: 3 },
      })
      expect(multi).toEqual({
        filePath: b,
        edits: [
          { old_string: 'alpha', new_string: 'ALPHA' },
          { old_string: 'gamma', new_string: 'GAMMA' },
        ],
        originalFileContents: 'alpha\nbeta\ngamma\n',
        structuredPatch: [
          {
            oldStart: 1,
            oldLines: 3,
            newStart: 1,
            newLines: 3,
            lines: ['-alpha', '+ALPHA', ' beta', '-gamma', '+GAMMA'],
          },
        ],
        userModified: false,
      })
      expect(update).toMatchObject({
        type: 'update',
        filePath: b,
        content: 'new\n',
        originalFile: 'ALPHA\nbeta\nGAMMA\n',
      })
      expect((update as { structuredPatch: unknown[] }).structuredPatch).toHaveLength(1)
      // Read has no top-level filePath in Claude Code either; the others name the file.
      expect(readFileSync(seen, 'utf8')).toBe([a, a, b, b, ''].join('\n'))
    },
  )
})
