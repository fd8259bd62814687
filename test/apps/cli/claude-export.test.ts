// `dsh sessions export --format claude-code` read by a real third-party reader of Claude Code
// transcripts (ccusage, a devDependency): a session with a bash call, a write and an edit, a
// failed command, reasoning and a sub-agent, written with `--to-claude-projects`; ccusage's
// token totals are the session's own (sub-agent included), and the lines have Claude Code's shape.

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-claude-export-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

/** ccusage's own entry point, from its package (no network: `--offline`). */
function ccusage(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const require = createRequire(import.meta.url)
  const entry = join(dirname(require.resolve('ccusage/package.json')), 'dist', 'index.js')
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text
    })
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
    })
    child.on('error', reject)
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }))
  })
}

const usage = (prompt: number, hit: number, completion: number) => ({
  promptTokens: prompt,
  cachedTokens: hit,
  cacheMissTokens: prompt - hit,
  completionTokens: completion,
  totalTokens: prompt + completion,
})

describe('sessions export --format claude-code', () => {
  it('is read by ccusage with the session’s token totals; tools, thinking, errors and the sub-agent in Claude Code’s shape', async () => {
    const w = await startWorld([
      {
        reasoning: 'First I look around.',
        toolCalls: [{ name: 'bash', arguments: { command: 'echo hi', timeout_ms: 5000 } }],
        usage: usage(1000, 0, 50),
      },
      {
        toolCalls: [{ name: 'write', arguments: { file_path: 'notes.txt', content: 'one\n' } }],
        usage: usage(1200, 1000, 40),
      },
      {
        toolCalls: [
          { name: 'edit', arguments: { file_path: 'notes.txt', old_string: 'one', new_string: 'two' } },
        ],
        usage: usage(1300, 1200, 30),
      },
      { toolCalls: [{ name: 'bash', arguments: { command: 'exit 3' } }], usage: usage(1400, 1300, 20) },
      {
        toolCalls: [{ name: 'subagent', arguments: { description: 'check', prompt: 'look at notes.txt' } }],
        usage: usage(1500, 1400, 25),
      },
      { text: 'the sub-agent answers', usage: usage(300, 0, 15) },
      { text: 'all done', usage: usage(1700, 1500, 10) },
    ])
    const run = await runCli(['run', '--session-id', 'cc-1', 'do the things'], { env: w.env, cwd: w.project })
    expect(run.code, run.stderr).toBe(0)

    const claudeDir = join(makeDir(), 'claude')
    mkdirSync(claudeDir)
    const env = { ...w.env, CLAUDE_CONFIG_DIR: claudeDir, TZ: 'UTC' }
    const written = await runCli(['sessions', 'export', 'cc-1', '--to-claude-projects'], {
      env,
      cwd: w.project,
    })
    expect(written.code, written.stderr).toBe(0)
    const file = written.stdout.trim()
    expect(file).toBe(join(claudeDir, 'projects', w.project.replace(/[^A-Za-z0-9]/g, '-'), 'cc-1.jsonl'))
    expect(existsSync(file)).toBe(true)
    const lines = jsonLines(readFileSync(file, 'utf8'))

    // The session's usage as dsh counts it, parent and sub-agent.
    const list = await runCli(['sessions', 'list', '--json', '--subagents'], { env, cwd: w.project })
    const rows = JSON.parse(list.stdout).sessions ?? JSON.parse(list.stdout)
    const mine = (rows as { id: string; usage: Record<string, number> }[]).filter((row) =>
      row.id.startsWith('cc-1'),
    )
    expect(mine).toHaveLength(2)
    const sum = (key: string) => mine.reduce((total, row) => total + row.usage[key]!, 0)

    const daily = await ccusage(['daily', '--json', '--offline'], env)
    expect(daily.code, daily.stderr).toBe(0)
    const report = JSON.parse(daily.stdout)
    expect(report.totals).toMatchObject({
      inputTokens: sum('cacheMissTokens'),
      cacheReadTokens: sum('cacheHitTokens'),
      cacheCreationTokens: 0,
      outputTokens: sum('outputTokens'),
    })
    expect(report.totals.outputTokens).toBe(50 + 40 + 30 + 20 + 25 + 15 + 10)
    expect(report.totals.cacheReadTokens).toBe(0 + 1000 + 1200 + 1300 + 1400 + 0 + 1500)

    // Every line carries what Claude Code's lines carry.
    for (const line of lines) {
      expect(line).toMatchObject({ sessionId: 'cc-1', cwd: w.project, userType: 'external' })
      expect(line.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(line.uuid).toMatch(/^[0-9a-f-]{36}$/)
      expect(typeof line.version).toBe('string')
    }
    expect(new Set(lines.map((line) => line.uuid)).size).toBe(lines.length)
    const assistant = lines.filter((line) => line.type === 'assistant')
    for (const line of assistant) {
      expect(line.message).toMatchObject({ type: 'message', role: 'assistant', model: expect.any(String) })
      expect((line.message as { id: string }).id).toMatch(/^msg_/)
      expect(line.requestId).toMatch(/^req_/)
    }
    const blocks = assistant.flatMap(
      (line) => (line.message as { content: Record<string, unknown>[] }).content,
    )
    expect(blocks[0]).toMatchObject({ type: 'thinking', thinking: 'First I look around.' })
    const uses = blocks.filter((block) => block.type === 'tool_use')
    expect(uses.map((block) => block.name)).toEqual(['Bash', 'Write', 'Edit', 'Bash', 'Agent'])
    expect(uses[0]!.input).toEqual({ command: 'echo hi', timeout: 5000 })
    expect(uses[1]!.input).toMatchObject({ file_path: join(w.project, 'notes.txt') })
    expect(uses[2]!.input).toMatchObject({ file_path: join(w.project, 'notes.txt'), old_string: 'one' })
    expect(uses[4]!.input).toMatchObject({ description: 'check', prompt: 'look at notes.txt' })
    const results = lines.flatMap((line) =>
      line.type === 'user' && Array.isArray((line.message as { content: unknown }).content)
        ? (line.message as { content: Record<string, unknown>[] }).content
        : [],
    )
    const failed = results.find((block) => block.tool_use_id === uses[3]!.id)
    expect(failed).toMatchObject({ type: 'tool_result', is_error: true })
    // The sub-agent: sidechain lines of the same file, their own chain, before the Agent result.
    const side = lines.filter((line) => line.isSidechain === true)
    expect(side.length).toBeGreaterThanOrEqual(2)
    expect(side[0]).toMatchObject({
      type: 'user',
      parentUuid: null,
      message: { content: 'look at notes.txt' },
    })
    expect(side.every((line) => line.agentId === side[0]!.agentId)).toBe(true)
    expect(side.at(-1)!.message).toMatchObject({ content: [{ type: 'text', text: 'the sub-agent answers' }] })
    const agentResult = lines.findIndex((line) =>
      ((line.message as { content: unknown }).content as { tool_use_id?: string }[])?.some?.(
        (block) => block.tool_use_id === uses[4]!.id,
      ),
    )
    expect(lines.indexOf(side.at(-1)!)).toBeLessThan(agentResult)
    // The main chain runs on past the sidechain.
    expect(lines[agentResult]!.parentUuid).toBe(
      lines.filter((line, i) => i < agentResult && line.isSidechain === false).at(-1)!.uuid,
    )
    const last = assistant.at(-1)!
    expect(last.message).toMatchObject({
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'all done' }],
    })

    const sessions = await ccusage(['session', '--json', '--offline'], env)
    expect(sessions.code, sessions.stderr).toBe(0)
    expect(JSON.parse(sessions.stdout).totals.outputTokens).toBe(190)
  })
})
