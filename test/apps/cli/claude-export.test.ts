// `dsh sessions export --format claude-code` read by a real third-party reader of Claude Code
// transcripts (ccusage, a devDependency): a session with a bash call, a write and an edit, a
// failed command, reasoning and a sub-agent, written with `--to-claude-projects`; ccusage's
// token totals are the session's own (sub-agent included), and the lines have Claude Code's shape.

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pngImage, writeImage } from '../../support/images.js'
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
    // On stdout, one stream with the sub-agent inline; in the projects folder, Claude Code's layout (below).
    const printed = await runCli(['sessions', 'export', 'cc-1'], { env, cwd: w.project })
    const lines = jsonLines(printed.stdout)

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
    // The sub-agent: sidechain lines of the stream, their own chain, before the Agent result.
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
    // In the projects folder, as Claude Code 2.x writes them: the main chain in <id>.jsonl, the
    // sub-agent's lines in <id>/subagents/agent-<agentId>.jsonl.
    expect(jsonLines(readFileSync(file, 'utf8'))).toEqual(lines.filter((line) => line.isSidechain === false))
    const agents = join(dirname(file), 'cc-1', 'subagents')
    expect(readdirSync(agents)).toEqual([`agent-${side[0]!.agentId}.jsonl`])
    expect(jsonLines(readFileSync(join(agents, `agent-${side[0]!.agentId}.jsonl`), 'utf8'))).toEqual(side)
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

/** `sessions list --json --subagents`' rows: every request once (a fork's copied turns are `inheritedUsage`). */
async function listedUsage(env: NodeJS.ProcessEnv, cwd: string) {
  const list = await runCli(['sessions', 'list', '--json', '--subagents'], { env, cwd })
  expect(list.code, list.stderr).toBe(0)
  const rows = JSON.parse(list.stdout) as { id: string; origin?: string; usage: Record<string, number> }[]
  const sum = (key: string) => rows.reduce((total, row) => total + row.usage[key]!, 0)
  return { rows, sum }
}

describe('sessions export --format claude-code of forks', () => {
  it('gives copied turns their first session’s ids: ccusage over a fork, a fork of it and a forked sub-agent counts each request once', async () => {
    const w = await startWorld([
      { text: 'one', usage: usage(1000, 0, 10) },
      {
        toolCalls: [
          { name: 'subagent', arguments: { description: 'look', prompt: 'look again', fork: true } },
        ],
        usage: usage(1100, 1000, 20),
      },
      { text: 'the forked sub-agent answers', usage: usage(1150, 1000, 30) },
      { text: 'two', usage: usage(1200, 1100, 40) },
      { text: 'in the fork', usage: usage(1300, 1200, 50) },
      { text: 'in the fork of the fork', usage: usage(1400, 1300, 60) },
    ])
    const opts = { env: w.env, cwd: w.project }
    expect((await runCli(['run', '--session-id', 'fk-1', 'first'], opts)).code).toBe(0)
    expect((await runCli(['run', '--session-id', 'fk-1', 'second'], opts)).code).toBe(0)
    const fork = await runCli(['run', '--json', '--fork', 'fk-1', 'third'], opts)
    expect(fork.code, fork.stderr).toBe(0)
    const forkId = jsonLines(fork.stdout)[0]!.sessionId as string
    const again = await runCli(['run', '--json', '--fork', forkId, 'fourth'], opts)
    expect(again.code, again.stderr).toBe(0)
    const againId = jsonLines(again.stdout)[0]!.sessionId as string

    const claudeDir = join(makeDir(), 'claude')
    mkdirSync(claudeDir)
    const env = { ...w.env, CLAUDE_CONFIG_DIR: claudeDir, TZ: 'UTC' }
    const { rows, sum } = await listedUsage(env, w.project)
    const sub = rows.find((row) => row.origin === 'subagent')!
    expect(rows.map((row) => row.id).sort()).toEqual([againId, forkId, 'fk-1', sub.id].sort())
    // Every session exported, the sub-agent on its own too (its seed is fk-1's first turn).
    const exported = new Map<string, Record<string, unknown>[]>()
    for (const id of ['fk-1', forkId, againId, sub.id]) {
      const written = await runCli(['sessions', 'export', id, '--to-claude-projects'], {
        env,
        cwd: w.project,
      })
      expect(written.code, written.stderr).toBe(0)
      exported.set(id, jsonLines(readFileSync(written.stdout.trim(), 'utf8')))
    }

    const daily = await ccusage(['daily', '--json', '--offline'], env)
    expect(daily.code, daily.stderr).toBe(0)
    expect(JSON.parse(daily.stdout).totals).toMatchObject({
      inputTokens: sum('cacheMissTokens'),
      cacheReadTokens: sum('cacheHitTokens'),
      outputTokens: sum('outputTokens'),
    })
    expect(sum('outputTokens')).toBe(10 + 20 + 30 + 40 + 50 + 60)

    // A copied line is the line its first session wrote: same uuid, message id and request id.
    const key = (line: Record<string, unknown>) =>
      `${line.uuid} ${(line.message as { id?: string }).id} ${line.requestId} ${line.parentUuid}`
    const parentKeys = new Set(exported.get('fk-1')!.map(key))
    const forkLines = exported.get(forkId)!
    const copied = forkLines.slice(
      0,
      forkLines.findIndex(
        (line) => line.message && (line.message as { content: unknown }).content === 'third',
      ),
    )
    expect(copied.length).toBeGreaterThan(0)
    for (const line of copied) expect(parentKeys.has(key(line))).toBe(true)
    const forkKeys = new Set(forkLines.map(key))
    const fromFork = exported.get(againId)!.filter((line) => forkKeys.has(key(line)))
    expect(fromFork.some((line) => (line.message as { content: unknown }).content === 'third')).toBe(true)
  })
})

describe('sessions export of tool input, errors and images', () => {
  it('writes a tool call whose arguments are not a JSON object with an object input keeping the text', async () => {
    const w = await startWorld([
      {
        toolCalls: [
          { name: 'bash', arguments: '{"command": "echo hi"' },
          { name: 'bash', arguments: '["echo", "hi"]' },
        ],
        usage: usage(100, 0, 5),
      },
      { text: 'recovered', usage: usage(200, 100, 5) },
    ])
    const run = await runCli(['run', '--session-id', 'bad-args', 'bad args'], { env: w.env, cwd: w.project })
    expect(run.code, run.stderr).toBe(0)
    const exported = await runCli(['sessions', 'export', 'bad-args'], { env: w.env, cwd: w.project })
    const uses = jsonLines(exported.stdout).flatMap((line) =>
      line.type === 'assistant'
        ? (line.message as { content: Record<string, unknown>[] }).content.filter(
            (block) => block.type === 'tool_use',
          )
        : [],
    )
    expect(uses.map((block) => block.input)).toEqual([
      { _raw: '{"command": "echo hi"' },
      { _raw: '["echo", "hi"]' },
    ])
  })

  it('writes a failed turn’s error: Claude Code’s API-error line, and the text in Markdown', async () => {
    const w = await startWorld([
      { text: 'fine', usage: usage(100, 0, 7) },
      { status: 400, message: 'BAD-REQUEST-FROM-SERVER' },
    ])
    const opts = { env: w.env, cwd: w.project }
    expect((await runCli(['run', '--session-id', 'err-1', 'first'], opts)).code).toBe(0)
    expect((await runCli(['run', '--session-id', 'err-1', 'second'], opts)).code).not.toBe(0)

    const md = await runCli(['sessions', 'export', 'err-1', '--format', 'markdown'], opts)
    expect(md.stdout).toMatch(
      /\*\(turn ended: error\)\*\n\n`+text\nmodel request failed: .*BAD-REQUEST-FROM-SERVER/,
    )

    const claudeDir = join(makeDir(), 'claude')
    mkdirSync(claudeDir)
    const env = { ...w.env, CLAUDE_CONFIG_DIR: claudeDir, TZ: 'UTC' }
    const written = await runCli(['sessions', 'export', 'err-1', '--to-claude-projects'], {
      env,
      cwd: w.project,
    })
    expect(written.code, written.stderr).toBe(0)
    const lines = jsonLines(readFileSync(written.stdout.trim(), 'utf8'))
    const last = lines.at(-1)!
    expect(last).toMatchObject({
      type: 'assistant',
      isApiErrorMessage: true,
      error: 'unknown',
      sessionId: 'err-1',
      parentUuid: lines.at(-2)!.uuid,
      message: {
        type: 'message',
        role: 'assistant',
        model: '<synthetic>',
        stop_reason: 'stop_sequence',
        usage: { input_tokens: 0, output_tokens: 0 },
        content: [{ type: 'text', text: expect.stringContaining('BAD-REQUEST-FROM-SERVER') }],
      },
    })
    expect(lines.at(-2)).toMatchObject({ type: 'user', message: { content: 'second' } })
    // A reader still counts only the real response.
    const daily = await ccusage(['daily', '--json', '--offline'], env)
    expect(daily.code, daily.stderr).toBe(0)
    expect(JSON.parse(daily.stdout).totals).toMatchObject({ inputTokens: 100, outputTokens: 7 })
  })

  it('lists a prompt’s and a tool result’s images in Markdown as sessions show does', async () => {
    const w = await startWorld([
      { toolCalls: [{ name: 'read', arguments: { file_path: 'shot.png' } }] },
      { text: 'a box' },
    ])
    writeImage(w.project, 'shot.png', await pngImage(16, 16))
    writeImage(w.project, 'photo.png', await pngImage(8, 8))
    const opts = { env: w.env, cwd: w.project }
    const run = await runCli(['run', '--session-id', 'img-1', '--image', 'photo.png', 'what is this?'], opts)
    expect(run.code, run.stderr).toBe(0)
    const shown = (await runCli(['sessions', 'show', 'img-1'], opts)).stdout
    const imageLines = shown.match(/\[image [^\]]+\]/g)!
    expect(imageLines.map((line) => line.split(' ')[1])).toEqual(['photo.png', 'shot.png'])
    const md = (await runCli(['sessions', 'export', 'img-1', '--format', 'markdown'], opts)).stdout
    for (const line of imageLines) expect(md).toContain(line)
    expect(md.indexOf(imageLines[0]!)).toBeLessThan(md.indexOf('read'))
  })
})
