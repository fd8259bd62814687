// The Claude Code handler contract through the real loop: `if` filters, exec form with
// `args`, `updatedInput` (mapped and re-validated), handlers that cannot start, comma
// matchers, PostToolUseFailure, the Stop block cap, and Agent/Task matching.

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEventMap } from '../../src/session/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import { oneHook, type Rig, readRecords, useRigs, writeRecorder, writeScript } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-handler-')
const rig = useRigs('claude-code')

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })

function hookResults(r: Rig, id: string) {
  return r.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'hook/result')
    .map((event) => event.data as SessionEventMap['hook/result'])
}

function toolResults(r: Rig, id: string) {
  return r.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as SessionEventMap['tool/result']).content)
}

describe('if filters', () => {
  it('a hook with "if": "Bash(git push *)" blocks git push and never runs for touch', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const guard = writeRecorder(dir, 'guard.sh', out, 'echo "no pushing from here" >&2\nexit 2')
    const r = await rig({
      dir,
      script: [bash('touch made-by-touch'), bash('git push origin main'), { text: 'ok' }],
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: guard, if: 'Bash(git push *)' }] },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: 'if-push', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(existsSync(join(r.cwd, 'made-by-touch'))).toBe(true)
    const runs = readRecords(out)
    expect(runs).toHaveLength(1)
    expect(runs[0]!.payload.tool_input).toMatchObject({ command: 'git push origin main' })
    expect(toolResults(r, agent.id)[1]).toContain('no pushing from here')
  })

  it('matches any part of a compound command, and an unreadable "if" runs the hook for every call', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const guard = writeRecorder(dir, 'guard.sh', out)
    const other = join(dir, 'other.jsonl')
    const always = writeRecorder(dir, 'always.sh', other)
    const r = await rig({
      dir,
      script: [bash('ls && git push'), bash('echo hi'), { text: 'ok' }],
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ command: guard, if: 'Bash(git push *)' }] },
          { matcher: 'Bash', hooks: [{ command: always, if: 'not a (rule' }] },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: 'if-compound', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(readRecords(out)).toHaveLength(1)
    expect(readRecords(other)).toHaveLength(2)
    expect(r.warnings.some((warning) => warning.includes('HOOK_INVALID_IF'))).toBe(true)
  })
})

describe('exec form', () => {
  it('runs the program with exactly the given arguments, no shell: a Node guard blocks rm', async () => {
    const dir = tempDir()
    const script = join(dir, 'guard with space.mjs')
    writeFileSync(
      script,
      [
        'let s = ""',
        'process.stdin.on("data", (d) => (s += d)).on("end", () => {',
        '  const input = JSON.parse(s).tool_input',
        '  if (/\\brm\\b/.test(input.command)) {',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the hook script's own source text
        '    process.stderr.write(`blocked by ${process.argv.slice(2).join("|")}`)',
        '    process.exit(2)',
        '  }',
        '})',
      ].join('\n'),
    )
    const r = await rig({
      dir,
      script: [bash('rm -rf victim'), { text: 'ok' }],
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ command: process.execPath, args: [script, '$HOME', "it's; echo"] }],
          },
        ],
      },
    })
    const { mkdirSync } = await import('node:fs')
    mkdirSync(join(r.cwd, 'victim'))
    const agent = await r.agents.create({ sessionId: 'exec-form', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(existsSync(join(r.cwd, 'victim'))).toBe(true)
    expect(toolResults(r, agent.id)[0]).toContain("blocked by $HOME|it's; echo")
  })
})

describe('handlers that cannot start', () => {
  it('are reported to the user every time, in shell and exec form, and block nothing silently', async () => {
    const dir = tempDir()
    const notExecutable = join(dir, 'plain.sh')
    writeFileSync(notExecutable, 'exit 2\n')
    const r = await rig({
      dir,
      script: [bash('echo one'), bash('echo two'), { text: 'ok' }],
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { command: join(dir, 'missing-guard.sh') },
              { command: 'no-such-program-dsh', args: ['x'] },
              { command: notExecutable },
            ],
          },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: 'cannot-start', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    const notices = r.warnings.filter((warning) => warning.includes('could not start'))
    // Three handlers, two calls: six lines, each naming what could not start.
    expect(notices).toHaveLength(6)
    expect(notices.filter((notice) => notice.includes('missing-guard.sh'))).toHaveLength(2)
    expect(notices.filter((notice) => notice.includes('no-such-program-dsh'))).toHaveLength(2)
    expect(
      notices.filter((notice) => notice.includes('plain.sh') && notice.includes('not executable')),
    ).toHaveLength(2)
    expect(hookResults(r, agent.id).every((result) => result.decision === 'error')).toBe(true)
  })
})

describe('updatedInput', () => {
  it('replaces the command the tool runs (Claude Code field names mapped back) and is logged', async () => {
    const dir = tempDir()
    const output = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: 'echo rewritten > out.txt', timeout: 5000 },
      },
    })
    const rewriter = writeScript(dir, 'rewrite.sh', `cat >/dev/null\necho '${output}'`)
    const r = await rig({
      dir,
      script: [bash('echo original > out.txt'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', rewriter, { matcher: 'Bash' }),
    })
    const agent = await r.agents.create({ sessionId: 'rewrite', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(readFileSync(join(r.cwd, 'out.txt'), 'utf8')).toBe('rewritten\n')
    expect(hookResults(r, agent.id)[0]!.updatedInput).toEqual({
      command: 'echo rewritten > out.txt',
      timeout: 5000,
    })
  })

  it('an updatedInput the tool schema refuses denies the call (fail closed) and says why', async () => {
    const dir = tempDir()
    const output = JSON.stringify({ hookSpecificOutput: { updatedInput: { command: 42 } } })
    const rewriter = writeScript(dir, 'bad.sh', `cat >/dev/null\necho '${output}'`)
    const r = await rig({
      dir,
      script: [bash('touch should-not-exist'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', rewriter),
    })
    const agent = await r.agents.create({ sessionId: 'rewrite-bad', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(existsSync(join(r.cwd, 'should-not-exist'))).toBe(false)
    expect(toolResults(r, agent.id)[0]).toMatch(/denied: .*refuses \(command: /)
  })

  it('several rewrites: the last in configuration order wins, with a warning', async () => {
    const dir = tempDir()
    const rewrite = (name: string, text: string, delay: string) =>
      writeScript(
        dir,
        name,
        `cat >/dev/null\nsleep ${delay}\necho '${JSON.stringify({ hookSpecificOutput: { updatedInput: { command: `echo ${text} > out.txt` } } })}'`,
      )
    // The first finishes last: configuration order, not finishing order, decides.
    const first = rewrite('first.sh', 'first', '0.5')
    const second = rewrite('second.sh', 'second', '0')
    const r = await rig({
      dir,
      script: [bash('echo original > out.txt'), { text: 'ok' }],
      hooks: { PreToolUse: [{ hooks: [{ command: first }, { command: second }] }] },
    })
    const agent = await r.agents.create({ sessionId: 'rewrite-two', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(readFileSync(join(r.cwd, 'out.txt'), 'utf8')).toBe('second\n')
    expect(r.warnings.some((warning) => warning.includes('2 PreToolUse hooks rewrote'))).toBe(true)
  })
})

describe('matchers and tool names', () => {
  it.each(['Bash, Edit', 'Bash,Edit', 'Bash ', 'Edit|Bash'])('%j matches the bash tool', async (matcher) => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const r = await rig({
      dir,
      script: [bash('true'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', writeRecorder(dir, 'rec.sh', out), { matcher }),
    })
    const agent = await r.agents.create({ sessionId: 'matcher', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(readRecords(out)).toHaveLength(1)
  })

  it('the sub-agent tool is Agent to hooks, and Task matches it too', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const r = await rig({
      dir,
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'd', prompt: 'p' } }] },
        { text: 'child' },
        { text: 'parent' },
      ],
      hooks: {
        PreToolUse: [
          { matcher: 'Agent', hooks: [{ command: writeRecorder(dir, 'a.sh', out) }] },
          { matcher: 'Task', hooks: [{ command: writeRecorder(dir, 'b.sh', out) }] },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: 'agent-tool', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    const runs = readRecords(out)
    expect(runs).toHaveLength(2)
    expect(runs.every((run) => run.payload.tool_name === 'Agent')).toBe(true)
  })
})

describe('PostToolUse and PostToolUseFailure', () => {
  it('a failing command fires PostToolUseFailure (not PostToolUse); a passing one has separate stdout and stderr', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      script: [bash('echo out; echo err >&2'), bash('echo oops >&2; exit 3'), { text: 'ok' }],
      hooks: { ...oneHook('PostToolUse', recorder), ...oneHook('PostToolUseFailure', recorder) },
    })
    const agent = await r.agents.create({ sessionId: 'post', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    const [post, failure, ...rest] = readRecords(out).map((run) => run.payload)
    expect(rest).toEqual([])
    expect(post).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_response: { stdout: 'out\n', stderr: 'err\n', interrupted: false, exit_code: 0 },
    })
    expect(failure).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'echo oops >&2; exit 3' },
      is_interrupt: false,
    })
    expect(failure!.error).toBe('Exit code 3\noops')
  })
})

describe('Stop block cap', () => {
  const saved = process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP
  afterEach(() => {
    if (saved === undefined) delete process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP
    else process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP = saved
  })

  it('a Stop hook that always blocks gets CLAUDE_CODE_STOP_HOOK_BLOCK_CAP continuations, then the turn ends with a message', async () => {
    process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP = '3'
    const dir = tempDir()
    const hook = writeScript(dir, 'stop.sh', 'cat >/dev/null\necho "keep going" >&2\nexit 2')
    const r = await rig({
      dir,
      script: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }, { text: 'never' }],
      hooks: oneHook('Stop', hook),
    })
    const agent = await r.agents.create({ sessionId: 'stop-cap', meta: { cwd: r.cwd } })
    const result = await agent.prompt('go')
    expect(result).toMatchObject({ reason: 'completed', text: 'd' })
    expect(r.model.requests).toHaveLength(4)
    expect(r.warnings.some((warning) => warning.includes('3 consecutive times'))).toBe(true)
  })
})
