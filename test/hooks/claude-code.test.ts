// The Claude Code dialect: payload fields, transcript_path from `locate` (a string, ''
// without a dedicated file), tool names, CLAUDE_PROJECT_DIR, sub-agent and end events.

import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir.js'
import { oneHook, readRecords, useRigs, writeRecorder, writeScript } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-claude-')
const rig = useRigs('claude-code')

function everyEvent(command: string) {
  return Object.assign(
    {},
    ...['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'].map((event) =>
      oneHook(event, command),
    ),
  )
}

describe('claude-code payloads', () => {
  it('carry the live session id and exactly locate(header).path with JSONL, creating no file', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo hello-from-bash' } }] },
        { text: 'done' },
      ],
      hooks: everyEvent(recorder),
    })
    const agent = await r.agents.create({ sessionId: 'claude jsonl ✓', meta: { cwd: r.cwd } })
    const location = r.root.get('sessionPersistence')!.locate(agent.session.header)!
    expect(location.kind).toBe('jsonl')
    // SessionStart ran at creation; the lookup created nothing.
    expect(readRecords(out)).toHaveLength(1)
    expect(existsSync(location.path)).toBe(false)

    await agent.prompt('say hello')
    const runs = readRecords(out)
    expect(runs.map((run) => run.payload.hook_event_name)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'Stop',
    ])
    for (const run of runs) {
      expect(run.payload).toMatchObject({
        session_id: 'claude jsonl ✓',
        transcript_path: location.path,
        cwd: r.cwd,
        permission_mode: 'default',
      })
      expect(run.projectDir).toBe(r.cwd)
    }
    // Before the first durability checkpoint the file does not exist yet; the hooks never forced it.
    expect(runs[0]!.transcriptExists).toBe(false)
    expect(runs[1]!.transcriptExists).toBe(false)
    expect(existsSync(location.path)).toBe(true)

    const [start, prompt, pre, post, stop] = runs.map((run) => run.payload)
    expect(start).toMatchObject({ source: 'startup' })
    expect(prompt).toMatchObject({ prompt: 'say hello' })
    expect(pre).toMatchObject({
      tool_name: 'Bash',
      tool_input: { command: 'echo hello-from-bash' },
      tool_use_id: 'call_1',
    })
    expect(post).toMatchObject({ tool_name: 'Bash', tool_use_id: 'call_1' })
    expect((post!.tool_response as { stdout: string }).stdout).toContain('hello-from-bash')
    expect(stop).toMatchObject({ stop_hook_active: false, last_assistant_message: 'done' })
    // Common fields of the current reference: `effort` everywhere, `prompt_id` from the first
    // prompt on (the same id for every event of that prompt), absent before it.
    for (const run of runs) expect(run.payload.effort).toBe('high')
    expect(start).not.toHaveProperty('prompt_id')
    const promptId = prompt!.prompt_id
    expect(promptId).toEqual(expect.any(String))
    for (const payload of [pre, post, stop]) expect(payload!.prompt_id).toBe(promptId)
  })

  it('never make a session that runs no turn write a file, and log SessionStart in the first turn', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({
      dir,
      script: [{ text: 'hi' }],
      hooks: {
        ...oneHook('SessionStart', writeScript(dir, 'ctx.sh', 'cat >/dev/null\necho START-CTX')),
        ...oneHook('SessionEnd', recorder),
      },
    })
    const persistence = r.root.get('sessionPersistence')!
    const idle = await r.agents.create({ sessionId: 'idle', meta: { cwd: r.cwd } })
    const idlePath = persistence.locate(idle.session.header)!.path
    await r.agents.dispose('idle')
    expect(readRecords(out).map((run) => run.payload.hook_event_name)).toEqual(['SessionEnd'])
    expect(existsSync(idlePath)).toBe(false)

    const busy = await r.agents.create({ sessionId: 'busy', meta: { cwd: r.cwd } })
    await busy.prompt('hello')
    const types = busy.session.events.map((event) => event.type)
    // SessionStart's context comes before the first prompt, as in Claude Code (issue 27).
    expect(types.slice(0, 5)).toEqual([
      'turn/start',
      'hook/invoked',
      'hook/result',
      'context/added',
      'user/message',
    ])
    const messages = JSON.stringify(r.model.requests[0])
    expect(messages).toContain('START-CTX')
    expect(messages.indexOf('START-CTX')).toBeLessThan(messages.indexOf('hello'))
    await r.agents.dispose('busy')
    expect(busy.session.events.at(-1)).toMatchObject({ type: 'hook/result', data: { event: 'SessionEnd' } })
    expect(existsSync(persistence.locate(busy.session.header)!.path)).toBe(true)
  })

  it("send transcript_path '' with SQLite, which keeps no dedicated file", async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({ dir, backend: 'sqlite', script: [{ text: 'hi' }], hooks: everyEvent(recorder) })
    const agent = await r.agents.create({ sessionId: 'claude-sqlite', meta: { cwd: r.cwd } })
    await agent.prompt('hello')
    const runs = readRecords(out)
    expect(runs).toHaveLength(3)
    for (const run of runs)
      expect(run.payload).toMatchObject({ session_id: 'claude-sqlite', transcript_path: '' })
  })

  it('SessionStart on resume says so and keeps the same transcript path', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const r = await rig({ dir, script: [{ text: 'one' }], hooks: oneHook('SessionStart', recorder) })
    const agent = await r.agents.create({ sessionId: 'resumable', meta: { cwd: r.cwd } })
    await agent.prompt('first')
    const path = r.root.get('sessionPersistence')!.locate(agent.session.header)!.path
    await r.agents.dispose('resumable')
    await r.agents.resume({ resumeSessionId: 'resumable' })
    const runs = readRecords(out)
    expect(runs.map((run) => run.payload.source)).toEqual(['startup', 'resume'])
    expect(runs[1]!.payload).toMatchObject({ session_id: 'resumable', transcript_path: path })
    expect(runs[1]!.transcriptExists).toBe(true)
  })

  it('expands $CLAUDE_PROJECT_DIR and its braced form in commands, even with spaces in the path', async () => {
    const dir = join(tempDir(), 'my project')
    mkdirSync(dir)
    const out = join(dir, 'runs.jsonl')
    // The rig's agent works in `<dir>/work`; the hooks live in the project, as in Claude Code.
    const hooksDir = join(dir, 'work', '.claude', 'hooks')
    mkdirSync(hooksDir, { recursive: true })
    writeRecorder(hooksDir, 'rec.sh', out)
    const r = await rig({
      dir,
      script: [{ text: 'ok' }],
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              { type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/rec.sh' },
              // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a JS template
              { type: 'command', command: '"${CLAUDE_PROJECT_DIR}/.claude/hooks/rec.sh"' },
            ],
          },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: 'project-dir', meta: { cwd: r.cwd } })
    await agent.prompt('hi')
    expect(readRecords(out).map((run) => run.projectDir)).toEqual([r.cwd, r.cwd])
  })

  it('matches tool hooks by the Claude Code name and by the dsh name', async () => {
    const dir = tempDir()
    const out = join(dir, 'names.txt')
    const byClaude = writeScript(dir, 'claude.sh', `cat >/dev/null\necho Bash >> ${JSON.stringify(out)}`)
    const byDsh = writeScript(dir, 'dsh.sh', `cat >/dev/null\necho bash >> ${JSON.stringify(out)}`)
    const byRegex = writeScript(dir, 'regex.sh', `cat >/dev/null\necho regex >> ${JSON.stringify(out)}`)
    const r = await rig({
      dir,
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'true' } }] }, { text: 'ok' }],
      hooks: {
        PreToolUse: [
          { matcher: 'Edit|Bash', hooks: [{ command: byClaude }] },
          { matcher: 'bash', hooks: [{ command: byDsh }] },
          { matcher: '^Ba.*$', hooks: [{ command: byRegex }] },
          { matcher: 'Bas', hooks: [{ command: byRegex }] },
        ],
      },
    })
    const agent = await r.agents.create({ sessionId: 'names', meta: { cwd: r.cwd } })
    await agent.prompt('go')
    const { readFileSync } = await import('node:fs')
    // Matching hooks run at once: compare without order.
    expect(readFileSync(out, 'utf8').trim().split('\n').sort()).toEqual(['Bash', 'bash', 'regex'])
  })
})

describe('claude-code sub-agent and end events', () => {
  it('fires SubagentStart/SubagentStop for a sub-agent (a SubagentStop block continues it) and SessionEnd on dispose', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const subagentStop = writeRecorder(
      dir,
      'substop.sh',
      out,
      `tail -n 1 ${JSON.stringify(out)} | grep -q '"stop_hook_active":true' && exit 0\necho "double-check your answer" >&2\nexit 2`,
    )
    const r = await rig({
      dir,
      script: [
        {
          toolCalls: [
            { name: 'subagent', arguments: { description: 'look around', prompt: 'find the answer' } },
          ],
        },
        { text: 'child first try' },
        { text: 'child final answer' },
        { text: 'parent done' },
      ],
      hooks: {
        ...oneHook('SessionStart', recorder),
        ...oneHook('SubagentStart', recorder),
        ...oneHook('SubagentStop', subagentStop),
        ...oneHook('PostToolUse', recorder, { matcher: 'Agent' }),
        ...oneHook('SessionEnd', recorder),
      },
    })
    const parent = await r.agents.create({ sessionId: 'parent', meta: { cwd: r.cwd } })
    const result = await parent.prompt('delegate')
    expect(result.text).toBe('parent done')
    const toolMessage = r.model.requests[3]!.messages.find((message) => message.role === 'tool')
    expect(toolMessage?.content).toContain('child final answer')
    await r.agents.dispose('parent')

    const runs = readRecords(out).map((run) => run.payload)
    expect(runs.map((payload) => payload.hook_event_name)).toEqual([
      'SessionStart',
      'SubagentStart',
      'SubagentStop',
      'SubagentStop',
      'PostToolUse',
      'SessionEnd',
    ])
    const childId = runs[1]!.agent_id as string
    expect(childId.startsWith('parent-sub-')).toBe(true)
    expect(runs[1]).toMatchObject({ session_id: 'parent', agent_type: 'general-purpose' })
    const persistence = r.root.get('sessionPersistence')!
    const childPath = persistence.locate({
      version: 1,
      id: childId,
      createdAt: 0,
      cwd: r.cwd,
      delegationDepth: 1,
    })!.path
    expect(runs[2]).toMatchObject({
      session_id: 'parent',
      agent_id: childId,
      stop_hook_active: false,
      agent_transcript_path: childPath,
      last_assistant_message: 'child first try',
    })
    expect(runs[3]).toMatchObject({ stop_hook_active: true, last_assistant_message: 'child final answer' })
    // Claude Code's Agent result: status, prompt, agentId, content blocks, duration, tool uses.
    const response = runs[4]!.tool_response as Record<string, unknown>
    expect(runs[4]).toMatchObject({ tool_name: 'Agent' })
    expect(response).toMatchObject({
      status: 'completed',
      prompt: 'find the answer',
      agentId: childId,
      content: [{ type: 'text', text: 'child final answer' }],
      totalToolUseCount: 0,
    })
    expect(response.totalDurationMs).toEqual(expect.any(Number))
    expect(runs[5]).toMatchObject({ session_id: 'parent', reason: 'other' })
  })

  it('describes the grandchild, not the agent firing the hook, in a nested sub-agent start and stop', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'rec.sh', out)
    const delegate = (prompt: string) => ({
      toolCalls: [{ name: 'subagent', arguments: { description: prompt, prompt } }],
    })
    const r = await rig({
      dir,
      script: [
        delegate('child task'),
        delegate('grandchild task'),
        { text: 'deep' },
        { text: 'mid' },
        { text: 'top' },
      ],
      hooks: { ...oneHook('SubagentStart', recorder), ...oneHook('SubagentStop', recorder) },
      maxDelegationDepth: 2,
    })
    const parent = await r.agents.create({ sessionId: 'nest', meta: { cwd: r.cwd } })
    expect((await parent.prompt('go')).text).toBe('top')

    const runs = readRecords(out).map((run) => run.payload)
    expect(runs.map((payload) => payload.hook_event_name)).toEqual([
      'SubagentStart',
      'SubagentStart',
      'SubagentStop',
      'SubagentStop',
    ])
    const child = runs[0]!.agent_id as string
    const grandchild = runs[1]!.agent_id as string
    expect(grandchild.startsWith(`${child}-sub-`)).toBe(true)
    const persistence = r.root.get('sessionPersistence')!
    const pathOf = (id: string, depth: number) =>
      persistence.locate({ version: 1, id, createdAt: 0, cwd: r.cwd, delegationDepth: depth })!.path
    // Fired inside the child for the grandchild: every sub-agent field is the grandchild's.
    for (const payload of [runs[1]!, runs[2]!]) {
      expect(payload).toMatchObject({
        session_id: child,
        transcript_path: pathOf(child, 1),
        agent_id: grandchild,
        agent_transcript_path: pathOf(grandchild, 2),
        parent_session_id: child,
      })
    }
    expect(runs[3]).toMatchObject({
      session_id: 'nest',
      agent_id: child,
      agent_transcript_path: pathOf(child, 1),
      parent_session_id: 'nest',
    })
  })
})
