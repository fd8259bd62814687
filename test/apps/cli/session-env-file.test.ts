// CLAUDE_ENV_FILE for SessionStart hooks: the hooks reference's own example works unchanged, a
// later bash call of the session sees what it exported (and one of its sub-agent too), and dsh's
// own environment never does (a later hook, run from dsh's environment, does not see it).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, runCli, useModelWorlds } from './cli.js'
import { projectHooks } from './project-hooks.js'

const makeDir = useTempDirs('dsh-cli-env-file-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

/** The example of "Persist environment variables" in Claude Code's hooks reference, as published. */
const PUBLISHED_EXAMPLE = `#!/bin/bash

if [ -n "$CLAUDE_ENV_FILE" ]; then
  echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"
  echo 'export DEBUG_LOG=true' >> "$CLAUDE_ENV_FILE"
  echo 'export PATH="$PATH:./node_modules/.bin"' >> "$CLAUDE_ENV_FILE"
fi

exit 0
`

const PROBE =
  'echo "env:$NODE_ENV:$DEBUG_LOG"; case ":$PATH:" in *:./node_modules/.bin:*) echo path-ok;; esac'

describe('CLAUDE_ENV_FILE', () => {
  it('is given to SessionStart hooks; later bash calls (a sub-agent’s too) source it; dsh’s environment does not', async () => {
    const w = await startWorld([
      { toolCalls: [{ name: 'bash', arguments: { command: PROBE } }] },
      { toolCalls: [{ name: 'subagent', arguments: { description: 'probe', prompt: 'probe the env' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: PROBE } }] },
      { text: 'sub done' },
      { text: 'done' },
    ])
    // vitest sets NODE_ENV=test; the example's variable must come from the env file alone.
    delete w.env.NODE_ENV
    const out = join(w.project, 'stop.txt')
    projectHooks(
      w.project,
      {
        SessionStart: [
          { hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/env.sh' }] },
        ],
        // `set -u`: a missing CLAUDE_ENV_FILE fails here as "unbound variable".
        Stop: [
          {
            hooks: [
              {
                type: 'command',
                command: `set -u; echo "stop:\${NODE_ENV:-unset}:$CLAUDE_PROJECT_DIR" >> ${out}`,
              },
            ],
          },
        ],
      },
      { 'env.sh': PUBLISHED_EXAMPLE },
    )
    const run = await runCli(['run', '--trust-project', '--json', '--session-id', 'env-1', 'probe'], {
      env: w.env,
      cwd: w.project,
    })
    expect(run.code, run.stderr).toBe(0)
    const raw = jsonLines(
      (await runCli(['sessions', 'export', 'env-1', '--format', 'jsonl'], { env: w.env })).stdout,
    )
    const results = raw
      .filter((line) => line.type === 'tool/result')
      .map((line) => (line.data as { content: string }).content)
    expect(results[0]).toContain('env:production:true')
    expect(results[0]).toContain('path-ok')
    // The sub-agent's call sees the session's env file too.
    const list = JSON.parse(
      (await runCli(['sessions', 'list', '--json', '--subagents'], { env: w.env, cwd: w.project })).stdout,
    )
    const child = (list as { id: string }[]).find((row) => row.id !== 'env-1')!
    const childRaw = jsonLines(
      (await runCli(['sessions', 'export', child.id, '--format', 'jsonl'], { env: w.env })).stdout,
    )
    const childResult = childRaw.find((line) => line.type === 'tool/result')!.data as { content: string }
    expect(childResult.content).toContain('env:production:true')
    expect(readFileSync(out, 'utf8')).toBe(`stop:unset:${w.project}\n`)
  })
})
