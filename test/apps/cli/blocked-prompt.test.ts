import { beforeAll, describe, expect, it } from 'vitest'
import { allText } from '../../support/all-text.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, runCli, useModelWorlds } from './cli.js'
import { projectHooks } from './project-hooks.js'

const makeDir = useTempDirs('dsh-cli-blocked-prompt-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const SECRET = 'AKIAZZ7SECRET0EXAMPLE'

describe('a prompt blocked by UserPromptSubmit', () => {
  it('is never persisted, titled or exported; the log records the block, the hook and the reason', async () => {
    const w = await startWorld([{ text: 'answered' }])
    projectHooks(
      w.project,
      {
        UserPromptSubmit: [
          { hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/scan.sh' }] },
        ],
      },
      {
        'scan.sh': `#!/bin/bash\nif grep -q 'AKIA[0-9A-Z]\\{16\\}'; then echo 'an AWS access key in the prompt' >&2; exit 2; fi\nexit 0\n`,
      },
    )
    const run = await runCli(
      ['run', '--trust-project', '--session-id', 'blk-1', `deploy with ${SECRET} please`],
      {
        env: w.env,
        cwd: w.project,
      },
    )
    expect(run.stdout + run.stderr).toContain('an AWS access key in the prompt')
    expect(w.model.requests).toHaveLength(0)

    const raw = jsonLines(
      (await runCli(['sessions', 'export', 'blk-1', '--format', 'jsonl'], { env: w.env })).stdout,
    )
    expect(raw.some((line) => line.type === 'user/message')).toBe(false)
    expect(raw.find((line) => line.type === 'turn/end')).toMatchObject({
      data: { reason: 'blocked', error: 'an AWS access key in the prompt' },
    })
    expect(raw.find((line) => line.type === 'hook/result')).toMatchObject({
      data: {
        event: 'UserPromptSubmit',
        command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/scan.sh',
        decision: 'block',
      },
    })
    const list = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
    expect(list.stdout).not.toContain(SECRET)
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: 'blk-1', title: null, outcome: 'blocked' }])
    for (const format of ['claude-code', 'markdown', 'jsonl']) {
      const out = await runCli(['sessions', 'export', 'blk-1', '--format', format], { env: w.env })
      expect(out.code).toBe(0)
      expect(out.stdout).not.toContain(SECRET)
    }
    expect(allText(w.home)).not.toContain(SECRET)

    // The next prompt goes through, and becomes the title.
    const next = await runCli(['run', '--trust-project', '--session-id', 'blk-1', 'a clean prompt'], {
      env: w.env,
      cwd: w.project,
    })
    expect(next.code, next.stderr).toBe(0)
    const rows = JSON.parse(
      (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
    )
    expect(JSON.stringify(rows)).toContain('a clean prompt')
    expect(allText(w.home)).not.toContain(SECRET)
  })
})
