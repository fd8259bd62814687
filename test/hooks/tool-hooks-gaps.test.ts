// Tool-hook paths the mutation run of src/hooks/protocol/tool-hooks.ts found untested
// (TESTING.md, "What survives, and why"): default reasons, a rewrite by one hook, an ask
// the later rules deny, PermissionRequest outside an interactive run and its deny or
// refused rewrite, the permission Notification's title, PostToolUse after a refusal.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import type { SessionEventMap } from '../../src/session/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { oneHook, type Rig, readRecords, useRigs, writeRecorder, writeScript } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-gaps-')
const rig = useRigs('claude-code')

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })
const json = (value: unknown) => `cat >/dev/null\necho '${JSON.stringify(value)}'`
const askHook = (dir: string) =>
  writeScript(dir, 'ask.sh', json({ hookSpecificOutput: { permissionDecision: 'ask' } }))

/** Stands in for the chat: records each question (tool and reason) and answers `answer`. */
async function user(root: Context, answer: boolean, asked: string[] = []) {
  const fiber = root.plugin({
    name: 'test-user',
    apply(ctx: Context) {
      ctx.on('tools/approve', (call, reason) => {
        asked.push(`${call.name}: ${reason}`)
        return answer
      })
    },
  })
  await fiber.await()
  return asked
}

/** Stands in for permission rules (loaded after the hooks unless told): denies every call. */
async function rulesDenyAll(root: Context) {
  const fiber = root.plugin({
    name: 'test-rules',
    apply(ctx: Context) {
      ctx.on('tools/pre-execute', async () => ({ kind: 'deny' as const, reason: 'a deny rule matches' }))
    },
  })
  await fiber.await()
}

function toolResults(r: Rig, id: string) {
  return r.agents
    .get(id)!
    .session.events.filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as SessionEventMap['tool/result']).content)
}

async function run(r: Rig, sessionId: string) {
  const agent = await r.agents.create({ sessionId, meta: { cwd: r.cwd } })
  await agent.prompt('go')
  return agent
}

/** What the model is told when an asked call is refused, by the user or for them. */
const REFUSED_ASK = 'Tool call denied: a PreToolUse hook asks for approval (approval required and not given)'

/**
 * An interactive run of `touch ran` that a PreToolUse hook sends for approval, where a
 * PermissionRequest hook answers `decision` and the user (never asked, if the hook answers)
 * would say yes.
 */
async function answeredByPermissionHook(decision: object, sessionId: string) {
  const dir = tempDir()
  const hook = writeScript(
    dir,
    'perm.sh',
    json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } }),
  )
  const r = await rig({
    dir,
    interactive: true,
    script: [bash('touch ran'), { text: 'ok' }],
    hooks: { ...oneHook('PreToolUse', askHook(dir)), ...oneHook('PermissionRequest', hook) },
  })
  const asked = await user(r.root, true)
  const agent = await run(r, sessionId)
  return {
    results: toolResults(r, agent.id),
    ran: existsSync(join(r.cwd, 'ran')),
    asked,
    warnings: r.warnings,
  }
}

describe('PreToolUse', () => {
  it('one hook rewriting the input is obeyed without the "several hooks" warning', async () => {
    const dir = tempDir()
    const rewrite = writeScript(
      dir,
      'rewrite.sh',
      json({
        hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'touch rewritten' } },
      }),
    )
    const r = await rig({
      dir,
      script: [bash('touch original'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', rewrite),
    })
    await run(r, 'one-rewrite')
    expect(existsSync(join(r.cwd, 'rewritten'))).toBe(true)
    expect(existsSync(join(r.cwd, 'original'))).toBe(false)
    expect(r.warnings.filter((warning) => warning.includes('rewrote the input'))).toEqual([])
  })

  it('a deny without a reason is given the default reason', async () => {
    const dir = tempDir()
    const deny = writeScript(dir, 'deny.sh', json({ hookSpecificOutput: { permissionDecision: 'deny' } }))
    const r = await rig({
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', deny),
    })
    const agent = await run(r, 'deny-default')
    expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
    expect(toolResults(r, agent.id)).toEqual(['Tool call denied: denied by a PreToolUse hook'])
  })

  it('continue: false without a stopReason (or with an empty one) stops the call with the default reason', async () => {
    for (const [name, output] of [
      ['stop-no-reason', { continue: false }],
      ['stop-empty-reason', { continue: false, stopReason: '' }],
    ] as const) {
      const dir = tempDir()
      const stop = writeScript(dir, 'stop.sh', json(output))
      const r = await rig({
        dir,
        script: [bash('touch ran'), { text: 'ok' }],
        hooks: oneHook('PreToolUse', stop),
      })
      const agent = await run(r, name)
      expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
      expect(toolResults(r, agent.id), name).toEqual(['Tool call denied: denied by a PreToolUse hook'])
    }
  })

  it('an ask without a reason asks the user with the default reason; a no runs neither the tool nor its Post hooks', async () => {
    const dir = tempDir()
    const out = join(dir, 'post.jsonl')
    const r = await rig({
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: {
        ...oneHook('PreToolUse', askHook(dir)),
        ...oneHook('PostToolUse', writeRecorder(dir, 'post.sh', out)),
        // The refused call's output is an error: with the wrong test it would go here.
        ...oneHook('PostToolUseFailure', writeRecorder(dir, 'failure.sh', out)),
      },
    })
    const asked = await user(r.root, false)
    await run(r, 'ask-default')
    expect(asked).toEqual(['bash: a PreToolUse hook asks for approval'])
    expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
    // Post hooks are awaited by the loop: had one fired, its record would be written by now.
    expect(readRecords(out)).toEqual([])
  })

  it('a hook that asks when the rules after it deny: denied, and nobody is asked', async () => {
    const dir = tempDir()
    const r = await rig({
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', askHook(dir)),
    })
    await rulesDenyAll(r.root)
    const asked = await user(r.root, true)
    const agent = await run(r, 'ask-rules-deny')
    expect(asked).toEqual([])
    expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
    expect(toolResults(r, agent.id)).toEqual(['Tool call denied: a deny rule matches'])
  })
})

describe('the hooks come first, whatever was loaded before them', () => {
  it('PreToolUse fires before the rules of a plugin loaded earlier, and its deny is the answer', async () => {
    const dir = tempDir()
    const out = join(dir, 'pre.jsonl')
    const deny = writeRecorder(
      dir,
      'deny.sh',
      out,
      json({
        hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'the hook says no' },
      }),
    )
    const r = await rig({
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: oneHook('PreToolUse', deny),
      beforeBridge: rulesDenyAll,
    })
    const agent = await run(r, 'pre-first')
    expect(readRecords(out)).toHaveLength(1)
    expect(toolResults(r, agent.id)).toEqual(['Tool call denied: the hook says no'])
    expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
  })

  it('PermissionRequest answers before an approval listener loaded earlier (which would say yes)', async () => {
    const dir = tempDir()
    const deny = writeScript(
      dir,
      'perm-deny.sh',
      json({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'no' },
        },
      }),
    )
    const asked: string[] = []
    const r = await rig({
      dir,
      interactive: true,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: { ...oneHook('PreToolUse', askHook(dir)), ...oneHook('PermissionRequest', deny) },
      beforeBridge: async (root) => void (await user(root, true, asked)),
    })
    await run(r, 'perm-first')
    expect(asked).toEqual([])
    expect(existsSync(join(r.cwd, 'ran'))).toBe(false)
  })
})

describe('PostToolUse', () => {
  it('a deny without a reason feeds back "blocked"; a hook that only adds context feeds nothing back', async () => {
    const dir = tempDir()
    const block = writeScript(dir, 'block.sh', json({ hookSpecificOutput: { permissionDecision: 'deny' } }))
    const r = await rig({
      dir,
      script: [bash('echo out'), { text: 'ok' }],
      hooks: oneHook('PostToolUse', block),
    })
    const agent = await run(r, 'post-blocked')
    expect(toolResults(r, agent.id)).toEqual(['out\n\nPostToolUse hook feedback:\nblocked'])

    const dir2 = tempDir()
    const context = writeScript(
      dir2,
      'context.sh',
      json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'POST-CONTEXT' } }),
    )
    const r2 = await rig({
      dir: dir2,
      script: [bash('echo out'), { text: 'ok' }],
      hooks: oneHook('PostToolUse', context),
    })
    const agent2 = await run(r2, 'post-context')
    expect(toolResults(r2, agent2.id)).toEqual(['out'])
    expect(JSON.stringify(r2.model.requests[1])).toContain('POST-CONTEXT')
  })
})

describe('PermissionRequest', () => {
  it('does not fire in a run that is not interactive: the approval listener answers', async () => {
    const dir = tempDir()
    const out = join(dir, 'perm.jsonl')
    const r = await rig({
      dir,
      script: [bash('touch ran'), { text: 'ok' }],
      hooks: {
        ...oneHook('PreToolUse', askHook(dir)),
        ...oneHook('PermissionRequest', writeRecorder(dir, 'perm.sh', out)),
      },
    })
    const asked = await user(r.root, true)
    await run(r, 'perm-headless')
    expect(asked).toHaveLength(1)
    expect(existsSync(join(r.cwd, 'ran'))).toBe(true)
    // PermissionRequest is awaited before the user is asked: it would have recorded by now.
    expect(readRecords(out)).toEqual([])
  })

  it('a deny answers for the user (who would say yes) and its message is shown', async () => {
    const answered = await answeredByPermissionHook(
      { behavior: 'deny', message: 'not on Sundays' },
      'perm-deny',
    )
    expect(answered).toMatchObject({ results: [REFUSED_ASK], ran: false, asked: [] })
    expect(
      answered.warnings.some((warning) =>
        warning.includes('PermissionRequest hook denied bash: not on Sundays'),
      ),
    ).toBe(true)
  })

  it('a deny without a message refuses as quietly as the user would: no notice', async () => {
    const answered = await answeredByPermissionHook({ behavior: 'deny' }, 'perm-deny-quiet')
    expect(answered).toMatchObject({ results: [REFUSED_ASK], ran: false, asked: [] })
    expect(answered.warnings.filter((warning) => warning.includes('PermissionRequest'))).toEqual([])
  })

  it('an allow whose rewrite the tool refuses denies the call and says why', async () => {
    const answered = await answeredByPermissionHook(
      { behavior: 'allow', updatedInput: { command: 42 } },
      'perm-bad-rewrite',
    )
    expect(answered).toMatchObject({ results: [REFUSED_ASK], ran: false, asked: [] })
    expect(
      answered.warnings.some((warning) =>
        warning.includes('PermissionRequest hook rewrote the input of Bash into something the tool refuses'),
      ),
    ).toBe(true)
  })

  it("the permission_prompt Notification carries dsh's title", async () => {
    const dir = tempDir()
    const out = join(dir, 'note.jsonl')
    const r = await rig({
      dir,
      interactive: true,
      script: [bash('true'), { text: 'ok' }],
      hooks: {
        ...oneHook('PreToolUse', askHook(dir)),
        ...oneHook('Notification', writeRecorder(dir, 'note.sh', out), { matcher: 'permission_prompt' }),
      },
    })
    await user(r.root, true)
    await run(r, 'perm-title')
    // The notification is not awaited by the loop: wait for its record.
    await until(() => readRecords(out).length > 0, 15_000, 'the Notification hook')
    expect(readRecords(out)[0]!.payload).toMatchObject({
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      title: 'Permission needed',
      message: 'dsh needs your permission to use Bash',
    })
  })
})
