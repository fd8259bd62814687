// `dsh hooks list` (every handler with its file, event, matcher and if; events dsh cannot
// fire; problems) and `dsh sessions export` (claude-code, markdown, jsonl), through the CLI.
// Also `dsh run` trusting the project's own hooks headlessly, unless --no-project-config.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-hooks-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

function projectSettings(project: string, hooks: Record<string, unknown>) {
  mkdirSync(join(project, '.git'))
  mkdirSync(join(project, '.claude'))
  writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify({ hooks }))
}

describe('dsh hooks list', () => {
  it('lists config and project handlers with file, event, matcher and if; unsupported events and types are said', async () => {
    const dir = makeDir()
    const w = makeWorld(dir, 'http://127.0.0.1:9', 'hooks:\n  claudeCode: [mine.json]\n')
    writeFileSync(
      join(w.home, 'mine.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'notify.sh', async: true }] }] } }),
    )
    projectSettings(w.project, {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { command: 'guard.sh', if: 'Bash(git push *)' },
            { type: 'http', url: 'x' },
          ],
        },
      ],
      PreCompact: [{ matcher: 'manual', hooks: [{ command: 'compact.sh' }] }],
      Setup: [{ hooks: [{ command: 'setup.sh' }] }],
    })
    const json = await runCli(['hooks', 'list', '--json'], { env: w.env, cwd: w.project })
    expect(json.code).toBe(0)
    const listing = JSON.parse(json.stdout)
    expect(listing.rows).toMatchObject([
      {
        dialect: 'claude-code',
        event: 'Stop',
        command: 'notify.sh',
        async: true,
        file: join(w.home, 'mine.json'),
        origin: 'config',
      },
      {
        event: 'PreToolUse',
        matcher: 'Bash',
        if: 'Bash(git push *)',
        command: 'guard.sh',
        file: join(w.project, '.claude', 'settings.json'),
        origin: 'project',
        fired: true,
      },
      { event: 'PreCompact', matcher: 'manual', fired: true },
      { event: 'Setup', fired: false },
    ])
    expect(listing.notFired['claude-code']).toContain('Setup')
    // dsh compacts, so the compaction events fire (issue 23).
    expect(listing.notFired['claude-code']).not.toContain('PreCompact')
    expect(listing.notFired['claude-code']).not.toContain('PostCompact')
    expect(listing.notFired.codex).not.toContain('PreCompact')
    expect(listing.problems.join('\n')).toContain('type "http" that dsh does not run')
    const text = await runCli(['hooks', 'list'], { env: w.env, cwd: w.project })
    expect(text.stdout).toContain('Setup (not fired)')
    // The project's file is not trusted here: `dsh run` would not load it.
    expect(text.stdout).toContain(
      '(project, not trusted: chat asks first; run and stdio load it only with --trust-project)',
    )
    expect(text.stdout).not.toContain('PreCompact (not fired)')
    expect(text.stdout).toMatch(/claude-code events dsh does not fire: .*PostToolBatch/)
    expect(text.stdout).not.toMatch(/claude-code events dsh does not fire: .*PostCompact/)
    const off = await runCli(['hooks', 'list', '--json', '--no-project-config'], {
      env: w.env,
      cwd: w.project,
    })
    expect(JSON.parse(off.stdout).rows).toHaveLength(1)
  })
})

describe('dsh run and project hooks', () => {
  it('runs the project hooks of a never-trusted folder only with --trust-project, none with --no-project-config', async () => {
    const dir = makeDir()
    const model = await startModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }])
    const w = makeWorld(dir, model.baseUrl)
    const out = join(dir, 'ran.txt')
    projectSettings(w.project, {
      UserPromptSubmit: [{ hooks: [{ command: `cat > /dev/null; echo ran >> ${JSON.stringify(out)}` }] }],
    })
    const untrusted = await runCli(['run', 'hi'], { env: w.env, cwd: w.project })
    expect(untrusted.code).toBe(0)
    expect(untrusted.stderr.split('\n').filter((line) => line.includes('not trusted'))).toEqual([
      `dsh: warning: trust: project ${w.project}: not trusted; not loaded: 1 Claude Code hook (.claude/settings.json) (trust it in dsh chat, or pass --trust-project)`,
    ])
    expect((await runCli(['run', '--trust-project', 'hi'], { env: w.env, cwd: w.project })).code).toBe(0)
    expect((await runCli(['run', '--no-project-config', 'hi'], { env: w.env, cwd: w.project })).code).toBe(0)
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(out, 'utf8')).toBe('ran\n')
  })
})

describe('dsh sessions export', () => {
  it('writes Claude Code transcript lines, Markdown and dsh JSON lines; refuses an unknown format', async () => {
    const dir = makeDir()
    const model = await startModel([
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] },
      { text: 'all done' },
    ])
    const w = makeWorld(dir, model.baseUrl)
    const run = await runCli(['run', '--json', '--session-id', 'exp-1', 'say hi'], {
      env: w.env,
      cwd: w.project,
    })
    expect(run.code).toBe(0)
    const cc = await runCli(['sessions', 'export', 'exp-1'], { env: w.env, cwd: w.project })
    const lines = jsonLines(cc.stdout)
    expect(lines.map((line) => line.type)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(lines[0]).toMatchObject({
      parentUuid: null,
      sessionId: 'exp-1',
      message: { role: 'user', content: 'say hi' },
    })
    expect(lines[1]!.parentUuid).toBe(lines[0]!.uuid)
    expect(lines[3]).toMatchObject({
      message: { role: 'assistant', content: [{ type: 'text', text: 'all done' }] },
    })
    // Stable: a second export is identical.
    expect((await runCli(['sessions', 'export', 'exp-1'], { env: w.env, cwd: w.project })).stdout).toBe(
      cc.stdout,
    )

    const md = await runCli(['sessions', 'export', 'exp-1', '--format', 'markdown'], {
      env: w.env,
      cwd: w.project,
    })
    expect(md.stdout).toContain('# Session exp-1')
    expect(md.stdout).toContain('> say hi')
    expect(md.stdout).toContain('**Assistant:**\n\nall done')
    const raw = await runCli(['sessions', 'export', 'exp-1', '--format', 'jsonl'], {
      env: w.env,
      cwd: w.project,
    })
    expect(jsonLines(raw.stdout)[0]).toMatchObject({ type: 'session', id: 'exp-1' })
    const bad = await runCli(['sessions', 'export', 'exp-1', '--format', 'pdf'], {
      env: w.env,
      cwd: w.project,
    })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--format must be one of claude-code, markdown, jsonl')
  })
})
