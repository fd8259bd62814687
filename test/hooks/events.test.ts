// Events and outputs beyond the basics: PermissionRequest and Notification where dsh asks,
// StopFailure, SessionStart's model, sub-agent fields, Codex's ask and deny wording, JSON
// on a non-zero exit, continue:false shown to the user, and SessionEnd after a checkpoint.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { failureOf } from '../../src/hooks/protocol/tool-hooks.js'
import type { SessionEventMap } from '../../src/session/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import { oneHook, type Rig, readRecords, useRigs, writeRecorder, writeScript } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-events-')
const rig = useRigs()

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })
const json = (value: unknown) => `cat >/dev/null\necho '${JSON.stringify(value)}'`

/** Stands in for the chat: records each question and answers `answer`. */
async function user(r: Rig, answer: boolean) {
  const asked: string[] = []
  const fiber = r.root.plugin({
    name: 'test-user',
    apply(ctx: Context) {
      ctx.on('tools/approve', (call) => {
        asked.push(call.name)
        return answer
      })
    },
  })
  await fiber.await()
  return asked
}

function toolResults(r: Rig, id: string) {
  return r.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as SessionEventMap['tool/result']).content)
}

describe('PermissionRequest and Notification', () => {
  it('a PermissionRequest hook that allows (with updatedInput) answers for the user, who is never asked', async () => {
    const dir = tempDir()
    const ask = writeScript(dir, 'ask.sh', json({ hookSpecificOutput: { permissionDecision: 'ask' } }))
    const answer = writeScript(
      dir,
      'answer.sh',
      json({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'allow', updatedInput: { command: 'echo approved > out.txt' } },
        },
      }),
    )
    const r = await rig({
      dialect: 'claude-code',
      dir,
      interactive: true,
      script: [bash('echo original > out.txt'), { text: 'ok' }],
      hooks: { ...oneHook('PreToolUse', ask), ...oneHook('PermissionRequest', answer, { matcher: 'Bash' }) },
    })
    const asked = await user(r, false)
    const agent = await r.agents.create({ sessionId: 'perm-allow', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(asked).toEqual([])
    expect(readFileSync(join(r.cwd, 'out.txt'), 'utf8')).toBe('approved\n')
  })

  it('without a PermissionRequest answer the user is asked and a permission_prompt Notification goes out', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const ask = writeScript(dir, 'ask.sh', json({ hookSpecificOutput: { permissionDecision: 'ask' } }))
    const r = await rig({
      dialect: 'claude-code',
      dir,
      interactive: true,
      script: [bash('touch asked-file'), { text: 'ok' }],
      hooks: {
        ...oneHook('PreToolUse', ask),
        ...oneHook('PermissionRequest', writeRecorder(dir, 'perm.sh', out)),
        ...oneHook('Notification', writeRecorder(dir, 'note.sh', out), { matcher: 'permission_prompt' }),
      },
    })
    const asked = await user(r, true)
    const agent = await r.agents.create({ sessionId: 'perm-ask', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(asked).toEqual(['bash'])
    expect(existsSync(join(r.cwd, 'asked-file'))).toBe(true)
    // The notification is not awaited by the prompt: wait for it to land.
    for (let i = 0; i < 100 && readRecords(out).length < 2; i++)
      await new Promise((done) => setTimeout(done, 50))
    const [perm, note] = readRecords(out).map((run) => run.payload)
    expect(perm).toMatchObject({
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      permission_suggestions: [],
    })
    expect(note).toMatchObject({ hook_event_name: 'Notification', notification_type: 'permission_prompt' })
    expect(note!.message).toContain('Bash')
  })
})

describe('turn and session events', () => {
  it('StopFailure fires for a turn that ends in an error; SessionStart carries the model', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [{ status: 400, message: 'bad request' }],
      hooks: { ...oneHook('SessionStart', recorder), ...oneHook('StopFailure', recorder) },
    })
    const agent = await r.agents.create({ sessionId: 'fails', meta: { cwd: r.cwd } })
    const result = await agent.prompt('go')
    expect(result.reason).toBe('error')
    for (let i = 0; i < 100 && readRecords(out).length < 2; i++)
      await new Promise((done) => setTimeout(done, 50))
    const [start, failure] = readRecords(out).map((run) => run.payload)
    expect(start).toMatchObject({ hook_event_name: 'SessionStart', model: r.root.get('llm')!.defaultModel })
    expect(String(start!.model)).not.toBe('')
    expect(failure).toMatchObject({ hook_event_name: 'StopFailure', session_id: 'fails' })
  })

  it("sub-agent tool hooks get the sub-agent's own session and transcript, plus parent_session_id", async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [
        { toolCalls: [{ name: 'subagent', arguments: { description: 'd', prompt: 'p' } }] },
        bash('true'),
        { text: 'child' },
        { text: 'parent' },
      ],
      hooks: oneHook('PreToolUse', writeRecorder(dir, 'rec.sh', out), { matcher: 'Bash' }),
    })
    const agent = await r.agents.create({ sessionId: 'parent', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    const [run] = readRecords(out)
    const payload = run!.payload
    expect(String(payload.session_id).startsWith('parent-sub-')).toBe(true)
    expect(payload.parent_session_id).toBe('parent')
    expect(payload.agent_id).toBe(payload.session_id)
    expect(payload.agent_transcript_path).toBe(payload.transcript_path)
    expect(String(payload.transcript_path)).toContain('parent-sub-')
  })

  it('SessionEnd hooks read a transcript that already holds the last answer (checkpoint first)', async () => {
    const dir = tempDir()
    const out = join(dir, 'end.txt')
    const hook = writeScript(
      dir,
      'end.sh',
      `path=$(node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).transcript_path))')\ngrep -c '"text":"the last answer"' "$path" > ${JSON.stringify(out)}`,
    )
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [{ text: 'the last answer' }],
      hooks: oneHook('SessionEnd', hook),
    })
    await (await r.agents.create({ sessionId: 'end', meta: { cwd: r.cwd } })).prompt('go')
    await r.agents.dispose('end')
    expect(readFileSync(out, 'utf8').trim()).not.toBe('0')
  })
})

describe('outputs', () => {
  it('continue:false with stopReason stops the agent and the user sees the reason', async () => {
    const dir = tempDir()
    const hook = writeScript(dir, 'halt.sh', json({ continue: false, stopReason: 'budget exhausted' }))
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [bash('true'), { text: 'never' }],
      hooks: oneHook('PostToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: 'halt', meta: { cwd: r.cwd } })
    const result = await agent.prompt('go')
    expect(result).toMatchObject({ reason: 'blocked', error: 'budget exhausted' })
    expect(r.warnings.some((warning) => warning.includes('budget exhausted'))).toBe(true)
  })

  it('PreToolUse additionalContext is logged as context from that event and the call runs', async () => {
    const dir = tempDir()
    const hook = writeScript(
      dir,
      'pre-context.sh',
      json({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'PRE-TOOL-CONTEXT' } }),
    )
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [bash('touch ran'), { text: 'done' }],
      hooks: oneHook('PreToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: 'pre-context', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(existsSync(join(r.cwd, 'ran'))).toBe(true)
    const added = agent.session.events.filter((event) => event.type === 'context/added')
    expect(added.map((event) => event.data)).toContainEqual({
      source: 'claude-code/PreToolUse',
      text: 'PRE-TOOL-CONTEXT',
    })
    expect(JSON.stringify(r.model.requests[1])).toContain('PRE-TOOL-CONTEXT')
  })

  it('PreToolUse continue:false stops the tool body from running, and the agent', async () => {
    const dir = tempDir()
    const hook = writeScript(dir, 'halt-pre.sh', json({ continue: false, stopReason: 'frozen for review' }))
    const post = join(dir, 'post.jsonl')
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [bash('touch ran'), { text: 'never' }],
      hooks: {
        ...oneHook('PreToolUse', hook),
        // A call that never ran has no Post hooks: neither the success nor the failure one.
        ...oneHook('PostToolUse', writeRecorder(dir, 'post.sh', post)),
        ...oneHook('PostToolUseFailure', writeRecorder(dir, 'failure.sh', post)),
      },
    })
    const agent = await r.agents.create({ sessionId: 'halt-pre', meta: { cwd: r.cwd } })
    const result = await agent.prompt('go')
    expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
    expect(result).toMatchObject({ reason: 'blocked', error: 'frozen for review' })
    expect(r.warnings.some((warning) => warning.includes('frozen for review'))).toBe(true)
    // Post hooks are awaited by the loop: had one fired, its record would be written by now.
    expect(readRecords(post)).toEqual([])
  })

  it('JSON printed with a non-zero exit is not obeyed, and the user is told why', async () => {
    const dir = tempDir()
    const hook = writeScript(dir, 'bad.sh', `${json({ decision: 'block', reason: 'no' })}\nexit 1`)
    const r = await rig({
      dialect: 'claude-code',
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', hook),
    })
    const agent = await r.agents.create({ sessionId: 'json-exit', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(existsSync(join(r.cwd, 'ran'))).toBe(true)
    expect(r.warnings.some((warning) => warning.includes('read as JSON only when they exit 0'))).toBe(true)
  })
})

describe('codex', () => {
  it("denies with Codex's wording, and an ask (which Codex hooks cannot make) is denied and said", async () => {
    const dir = tempDir()
    const deny = writeScript(dir, 'deny.sh', 'cat >/dev/null\necho "not here" >&2\nexit 2')
    const ask = writeScript(
      dir,
      'ask.sh',
      json({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'confirm?' } }),
    )
    const r = await rig({
      dialect: 'codex',
      dir,
      script: [bash('rm -rf x'), bash('touch y'), { text: 'ok' }],
      hooks: {
        PreToolUse: [{ matcher: '^Bash$', hooks: [{ command: deny }] }],
      },
    })
    const agent = await r.agents.create({ sessionId: 'codex-deny', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    expect(toolResults(r, agent.id)[0]).toContain(
      'Command blocked by PreToolUse hook: not here. Command: rm -rf x',
    )

    const r2 = await rig({
      dialect: 'codex',
      dir: tempDir(),
      script: [bash('touch y'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', ask),
    })
    const agent2 = await r2.agents.create({ sessionId: 'codex-ask', meta: { cwd: r2.cwd } })
    await agent2.prompt('go')
    expect(existsSync(join(r2.cwd, 'y'))).toBe(false)
    expect(toolResults(r2, agent2.id)[0]).toContain('codex hooks cannot do')
    expect(r2.warnings.some((warning) => warning.includes('confirm?'))).toBe(true)

    // Without a reason the notice ends at the denial: nothing is appended.
    const dir3 = tempDir()
    const bareAsk = writeScript(dir3, 'ask.sh', json({ hookSpecificOutput: { permissionDecision: 'ask' } }))
    const r3 = await rig({
      dialect: 'codex',
      dir: dir3,
      script: [bash('touch z'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', bareAsk),
    })
    const agent3 = await r3.agents.create({ sessionId: 'codex-bare-ask', meta: { cwd: r3.cwd } })
    await agent3.prompt('go')
    expect(existsSync(join(r3.cwd, 'z'))).toBe(false)
    expect(r3.warnings.filter((warning) => warning.includes('cannot do'))).toEqual([
      expect.stringMatching(
        /a codex PreToolUse hook answered "ask", which codex hooks cannot do, so the call was denied$/,
      ),
    ])
  })
})

describe('which calls count as failed (PostToolUseFailure)', () => {
  it('a tool error, a non-zero exit (with its stderr, trimmed) or an interruption; nothing else', () => {
    expect(failureOf({ content: 'bad arguments', isError: true })).toEqual({
      error: 'bad arguments',
      interrupted: false,
    })
    expect(failureOf({ content: 'x', isError: true, details: { interrupted: true } })).toEqual({
      error: 'x',
      interrupted: true,
    })
    expect(failureOf({ content: '', details: { exitCode: 3, stderr: '\n  oops\n' } })).toEqual({
      error: 'Exit code 3\noops',
      interrupted: false,
    })
    expect(failureOf({ content: '', details: { exitCode: 2, stderr: '  ' } })).toEqual({
      error: 'Exit code 2',
      interrupted: false,
    })
    expect(failureOf({ content: '', details: { exitCode: 130, stderr: 42, interrupted: true } })).toEqual({
      error: 'Exit code 130',
      interrupted: true,
    })
    expect(failureOf({ content: '', details: { exitCode: 0, interrupted: true } })).toEqual({
      error: 'interrupted',
      interrupted: true,
    })
    expect(failureOf({ content: 'fine', details: { exitCode: 0, stderr: 'warning' } })).toBeUndefined()
    expect(failureOf({ content: 'fine', details: { exitCode: '1', interrupted: 'yes' } })).toBeUndefined()
    expect(failureOf({ content: 'fine' })).toBeUndefined()
  })
})
