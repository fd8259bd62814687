// Behaviour both hook dialects share, run against each bridge through the real loop:
// blocking tool calls, prompts and stops, context, and resilience to bad hooks and files.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEventMap } from '../../src/session/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import {
  type DialectLabel,
  oneHook,
  type Rig,
  readRecords,
  useRigs,
  writeRecorder,
  writeScript,
} from './rig.js'

const tempDir = useTempDirs('dsh-hooks-contract-')
const rig = useRigs()

const rmCall = { toolCalls: [{ name: 'bash', arguments: { command: 'rm -rf victim' } }] }

function hookResults(rig: Rig, id: string) {
  return rig.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'hook/result')
    .map((event) => event.data as SessionEventMap['hook/result'])
}

describe.each<DialectLabel>(['claude-code', 'codex'])('%s bridge', (dialect) => {
  it("tool hooks inside a sub-agent pair the sub-agent's id with its own transcript, the parent's with the parent's", async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })
    const r = await rig({
      dialect,
      dir,
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'd', prompt: 'p' } }] },
        bash('echo in-child'),
        { text: 'child done' },
        bash('echo in-parent'),
        { text: 'parent done' },
      ],
      hooks: { ...oneHook('PreToolUse', recorder), ...oneHook('PostToolUse', recorder) },
    })
    const parent = await r.agents.create({ sessionId: `pair-${dialect}`, meta: { cwd: r.cwd } })
    expect((await parent.prompt('delegate')).reason).toBe('completed')
    const persistence = r.root.get('sessionPersistence')!
    const pathOf = (id: string) =>
      persistence.locate({ version: 1, id, createdAt: 0, cwd: r.cwd, delegationDepth: 0 })!.path
    const runs = readRecords(out)
      .map((run) => run.payload)
      .filter((payload) => payload.tool_name === 'Bash')
    expect(runs.map((payload) => payload.hook_event_name)).toEqual([
      'PreToolUse',
      'PostToolUse',
      'PreToolUse',
      'PostToolUse',
    ])
    const [childPre, childPost, parentPre, parentPost] = runs
    const childId = String(childPre!.session_id)
    expect(childId.startsWith(`pair-${dialect}-sub-`)).toBe(true)
    for (const payload of [childPre, childPost]) {
      expect(payload).toMatchObject({ session_id: childId, transcript_path: pathOf(childId) })
      expect(JSON.stringify(payload!.tool_input)).toContain('in-child')
    }
    for (const payload of [parentPre, parentPost]) {
      expect(payload).toMatchObject({
        session_id: `pair-${dialect}`,
        transcript_path: pathOf(`pair-${dialect}`),
      })
      expect(JSON.stringify(payload!.tool_input)).toContain('in-parent')
    }
    expect(pathOf(childId)).not.toBe(pathOf(`pair-${dialect}`))
  })

  it("transcript_path follows a persistence backend swapped under the live bridge to the new backend's locate", async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dialect,
      dir,
      script: [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
      hooks: oneHook('Stop', recorder),
    })
    const agent = await r.agents.create({ sessionId: `swap-${dialect}`, meta: { cwd: r.cwd } })
    const locate = () => r.root.get('sessionPersistence')!.locate(agent.session.header)?.path
    await agent.prompt('first')
    const first = locate()!
    expect(first.startsWith(join(dir, 'sessions'))).toBe(true)

    await r.swapBackend('sqlite', join(dir, 'swapped.db'))
    expect(locate()).toBeUndefined()
    await agent.prompt('second')

    await r.swapBackend('jsonl', join(dir, 'elsewhere'))
    const third = locate()!
    expect(third.startsWith(join(dir, 'elsewhere'))).toBe(true)
    await agent.prompt('third')

    const paths = readRecords(out).map((run) => run.payload.transcript_path)
    expect(paths).toEqual([first, dialect === 'codex' ? null : '', third])
    expect(existsSync(third)).toBe(true)
  })

  it('a PreToolUse hook exiting 2 for rm -rf blocks the call and the model sees the reason', async () => {
    const dir = tempDir()
    const guard = writeScript(
      dir,
      'guard.sh',
      'input=$(cat)\ncase "$input" in *"rm -rf"*) echo "Blocked: rm -rf is not allowed here" >&2; exit 2;; esac\nexit 0',
    )
    const r = await rig({
      dialect,
      dir,
      script: [rmCall, { text: 'understood' }],
      hooks: oneHook('PreToolUse', guard, { matcher: 'Bash' }),
    })
    mkdirSync(join(r.cwd, 'victim'))
    const agent = await r.agents.create({ sessionId: `guard-${dialect}`, meta: { cwd: r.cwd } })
    const result = await agent.prompt('clean up')
    expect(result.reason).toBe('completed')
    expect(existsSync(join(r.cwd, 'victim'))).toBe(true)
    expect(r.model.requests).toHaveLength(2)
    expect(JSON.stringify(r.model.requests[1])).toContain('Blocked: rm -rf is not allowed here')
    const types = agent.session.events.map((event) => event.type)
    expect(types.indexOf('hook/invoked')).toBeLessThan(types.indexOf('hook/result'))
    expect(hookResults(r, agent.id)).toMatchObject([
      { dialect, event: 'PreToolUse', command: guard, decision: 'block', exitCode: 2 },
    ])
  })

  it('a PreToolUse hook answering permissionDecision deny blocks the call and the model sees the reason', async () => {
    const dir = tempDir()
    const output = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'destructive command refused by policy',
      },
    })
    const guard = writeScript(dir, 'deny.sh', `cat >/dev/null\necho '${output}'`)
    const r = await rig({
      dialect,
      dir,
      script: [rmCall, { text: 'ok' }],
      hooks: oneHook('PreToolUse', guard, { matcher: '' }),
    })
    mkdirSync(join(r.cwd, 'victim'))
    const agent = await r.agents.create({ sessionId: `deny-${dialect}`, meta: { cwd: r.cwd } })
    await agent.prompt('clean up')
    expect(existsSync(join(r.cwd, 'victim'))).toBe(true)
    expect(JSON.stringify(r.model.requests[1])).toContain('destructive command refused by policy')
    expect(hookResults(r, agent.id)[0]).toMatchObject({ decision: 'deny', exitCode: 0 })
  })

  it('permissionDecision ask fails closed without an approval listener', async () => {
    const dir = tempDir()
    const output = JSON.stringify({
      hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'please confirm' },
    })
    const guard = writeScript(dir, 'ask.sh', `cat >/dev/null\necho '${output}'`)
    const r = await rig({
      dialect,
      dir,
      script: [rmCall, { text: 'ok' }],
      hooks: oneHook('PreToolUse', guard),
    })
    mkdirSync(join(r.cwd, 'victim'))
    const agent = await r.agents.create({ sessionId: `ask-${dialect}`, meta: { cwd: r.cwd } })
    await agent.prompt('clean up')
    expect(existsSync(join(r.cwd, 'victim'))).toBe(true)
    expect(JSON.stringify(r.model.requests[1])).toContain('please confirm')
  })

  it('a UserPromptSubmit block closes the turn blocked without a model request', async () => {
    const dir = tempDir()
    const hook = writeScript(dir, 'prompt.sh', 'cat >/dev/null\necho "no secrets in prompts" >&2\nexit 2')
    const r = await rig({
      dialect,
      dir,
      script: [{ text: 'never' }],
      hooks: oneHook('UserPromptSubmit', hook),
    })
    const agent = await r.agents.create({ sessionId: `prompt-${dialect}`, meta: { cwd: r.cwd } })
    const result = await agent.prompt('my key is sk-123')
    expect(result.reason).toBe('blocked')
    expect(result.error).toContain('no secrets in prompts')
    expect(r.model.requests).toHaveLength(0)
  })

  it('a Stop block makes the agent continue once with the reason, then stop (stop_hook_active on the repeat)', async () => {
    const dir = tempDir()
    const out = join(dir, 'stop.jsonl')
    const hook = writeRecorder(
      dir,
      'stop.sh',
      out,
      `tail -n 1 ${JSON.stringify(out)} | grep -q '"stop_hook_active":true' && exit 0\necho "run the tests before you stop" >&2\nexit 2`,
    )
    const r = await rig({
      dialect,
      dir,
      script: [{ text: 'done' }, { text: 'tests pass, done' }],
      hooks: oneHook('Stop', hook),
    })
    const agent = await r.agents.create({ sessionId: `stop-${dialect}`, meta: { cwd: r.cwd } })
    const result = await agent.prompt('fix it')
    expect(result).toMatchObject({ reason: 'completed', text: 'tests pass, done' })
    expect(r.model.requests).toHaveLength(2)
    const messages = r.model.requests[1]!.messages
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: 'run the tests before you stop' })
    expect(readRecords(out).map((run) => run.payload.stop_hook_active)).toEqual([false, true])
    expect(readRecords(out)[0]!.payload.last_assistant_message).toBe('done')
  })

  it('additionalContext and plain SessionStart stdout reach the next model request', async () => {
    const dir = tempDir()
    const start = writeScript(dir, 'start.sh', 'cat >/dev/null\necho "SESSION-START-CONTEXT"')
    const prompt = writeScript(
      dir,
      'prompt.sh',
      `cat >/dev/null\necho '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'PROMPT-CONTEXT' } })}'`,
    )
    const post = writeScript(
      dir,
      'post.sh',
      `cat >/dev/null\necho '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'POST-TOOL-CONTEXT' } })}'`,
    )
    const r = await rig({
      dialect,
      dir,
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { text: 'ok' }],
      hooks: {
        ...oneHook('SessionStart', start),
        ...oneHook('UserPromptSubmit', prompt),
        ...oneHook('PostToolUse', post, { matcher: 'Bash' }),
      },
    })
    const agent = await r.agents.create({ sessionId: `context-${dialect}`, meta: { cwd: r.cwd } })
    await agent.prompt('hello')
    const first = JSON.stringify(r.model.requests[0])
    expect(first).toContain('SESSION-START-CONTEXT')
    expect(first).toContain('PROMPT-CONTEXT')
    expect(first).not.toContain('POST-TOOL-CONTEXT')
    expect(JSON.stringify(r.model.requests[1])).toContain('POST-TOOL-CONTEXT')
  })

  it('a PostToolUse block is shown to the model with the tool result', async () => {
    const dir = tempDir()
    const post = writeScript(
      dir,
      'post.sh',
      `cat >/dev/null\necho '${JSON.stringify({ decision: 'block', reason: 'lint failed: fix main.ts' })}'`,
    )
    const r = await rig({
      dialect,
      dir,
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo edited' } }] }, { text: 'ok' }],
      hooks: oneHook('PostToolUse', post),
    })
    const agent = await r.agents.create({ sessionId: `post-${dialect}`, meta: { cwd: r.cwd } })
    await agent.prompt('edit')
    const tool = r.model.requests[1]!.messages.find((message) => message.role === 'tool')
    expect(tool?.content).toContain('edited')
    expect(tool?.content).toContain('lint failed: fix main.ts')
  })

  it('malformed JSON output is a warning, not a failure', async () => {
    const dir = tempDir()
    const hook = writeScript(
      dir,
      'broken.sh',
      `cat >/dev/null\necho '{"hookSpecificOutput": {"permissionDecision": '`,
    )
    const r = await rig({
      dialect,
      dir,
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo ran-anyway' } }] }, { text: 'ok' }],
      hooks: oneHook('PreToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: `malformed-${dialect}`, meta: { cwd: r.cwd } })
    const result = await agent.prompt('go')
    expect(result.reason).toBe('completed')
    expect(JSON.stringify(r.model.requests[1])).toContain('ran-anyway')
    expect(r.warnings.some((warning) => warning.includes('HOOK_BAD_OUTPUT'))).toBe(true)
    expect(hookResults(r, agent.id)[0]).toMatchObject({ decision: 'none', exitCode: 0 })
  })

  it('a non-zero exit other than 2 is a non-blocking error', async () => {
    const dir = tempDir()
    const hook = writeScript(dir, 'fails.sh', 'cat >/dev/null\necho "hook crashed" >&2\nexit 1')
    const r = await rig({
      dialect,
      dir,
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo still-ran' } }] }, { text: 'ok' }],
      hooks: oneHook('PreToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: `exit1-${dialect}`, meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(JSON.stringify(r.model.requests[1])).toContain('still-ran')
    expect(hookResults(r, agent.id)[0]).toMatchObject({
      decision: 'error',
      exitCode: 1,
      stderr: 'hook crashed',
    })
  })

  it('missing and invalid hook files leave the harness running with warnings and no hooks', async () => {
    const dir = tempDir()
    const invalid = join(dir, 'invalid.json')
    writeFileSync(invalid, '{ not json')
    const wrongShape = join(dir, 'wrong.json')
    writeFileSync(wrongShape, JSON.stringify({ hooks: { Stop: 'exit 2' } }))
    const r = await rig({
      dialect,
      dir,
      script: [{ text: 'fine' }],
      files: [join(dir, 'missing.json'), invalid, wrongShape],
    })
    const agent = await r.agents.create({ sessionId: `files-${dialect}`, meta: { cwd: r.cwd } })
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('completed')
    const codes = r.warnings.map((warning) => /HOOK_[A-Z_]+/.exec(warning)?.[0])
    expect(codes).toEqual(['HOOK_FILE_UNREADABLE', 'HOOK_FILE_INVALID', 'HOOK_FILE_INVALID'])
    expect(agent.session.events.some((event) => event.type.startsWith('hook/'))).toBe(false)
  })

  it('runs matching hooks at once (each waits for a file the other makes), identical handlers once, others skipped', async () => {
    const dir = tempDir()
    const out = join(dir, 'order.txt')
    // Each hook creates its own file, then waits (up to 20 s) for the other's: run one after
    // the other they would both time out at 5 s and fail; only run together do both finish.
    const waiter = (mine: string, theirs: string) =>
      writeScript(
        dir,
        `${mine}.sh`,
        [
          'cat >/dev/null',
          `touch ${JSON.stringify(join(dir, mine))}`,
          `for i in $(seq 1 200); do [ -e ${JSON.stringify(join(dir, theirs))} ] && { echo ${mine} >> ${JSON.stringify(out)}; exit 0; }; sleep 0.1; done`,
          'exit 1',
        ].join('\n'),
      )
    const first = waiter('first', 'second')
    const second = waiter('second', 'first')
    const other = writeScript(dir, 'other.sh', `cat >/dev/null\necho other >> ${JSON.stringify(out)}`)
    const r = await rig({
      dialect,
      dir,
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'true' } }] }, { text: 'ok' }],
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ command: first, timeout: 5 }] },
          { matcher: 'Write', hooks: [{ command: other }] },
          { hooks: [{ command: second, timeout: 5 }] },
          { matcher: 'Bash', hooks: [{ command: first, timeout: 5 }] },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: `order-${dialect}`, meta: { cwd: r.cwd } })
    await agent.prompt('go')
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['first', 'second'])
    const results = hookResults(r, agent.id)
    expect(results.map((result) => result.exitCode)).toEqual([0, 0])
    expect(results.map((result) => result.command).sort()).toEqual([first, second].sort())
  })
})
