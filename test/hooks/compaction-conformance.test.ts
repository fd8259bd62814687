// The conformance suite, compaction part: published-style PreCompact, PostCompact and
// SessionStart(compact) scripts (test/hooks/conformance/) in a project's .claude/ (and
// Codex's .codex/hooks.json), run by the real harness against the strict stand-in with a
// small context window. Needs python3 and jq on PATH; without them these tests fail.

import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentHandle } from '../../src/agent/index.js'
import type { SessionEvent, SessionEventMap } from '../../src/session/index.js'
import { workScript } from '../support/compaction-script.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-hooks-compaction-')
const start = useTestHarnesses()
const SCRIPTS = join(import.meta.dirname, 'conformance')
const WINDOW = 16_000
const CONTEXT_TEXT = 'After compaction: the open task list is in TODO.md.'

type Json = Record<string, unknown>

/** A git project with the published scripts copied into `<root>/<folder>/hooks`. */
function project(folder: '.claude' | '.codex', settings: Json): string {
  const root = join(tempDir(), 'project')
  mkdirSync(join(root, '.git'), { recursive: true })
  mkdirSync(join(root, folder, 'hooks'), { recursive: true })
  for (const file of readdirSync(SCRIPTS)) {
    const target = join(root, folder, 'hooks', file)
    copyFileSync(join(SCRIPTS, file), target)
    chmodSync(target, statSync(join(SCRIPTS, file)).mode)
  }
  const file = folder === '.claude' ? 'settings.json' : 'hooks.json'
  writeFileSync(join(root, folder, file), JSON.stringify({ hooks: settings }, null, 2))
  return root
}

const hook = (file: string) => ({ type: 'command', command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${file}` })

/** Claude Code settings: a backup on every compaction, a guard on manual ones, a logger, a reloader. */
function claudeProject(): string {
  return project('.claude', {
    PreCompact: [
      { matcher: 'manual|auto', hooks: [hook('pre_compact_backup.sh')] },
      {
        matcher: 'manual',
        hooks: [
          { ...hook('pre_compact_guard.py'), command: `python3 ${hook('pre_compact_guard.py').command}` },
        ],
      },
    ],
    PostCompact: [
      {
        hooks: [
          { ...hook('post_compact_log.py'), command: `python3 ${hook('post_compact_log.py').command}` },
        ],
      },
    ],
    SessionStart: [{ matcher: 'compact', hooks: [hook('session_start_reload.sh')] }],
  })
}

function jsonLines(path: string): Json[] {
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Json)
}

function ofType<K extends keyof SessionEventMap>(
  events: readonly SessionEvent[],
  type: K,
): SessionEventMap[K][] {
  return events.filter((event) => event.type === type).map((event) => event.data as SessionEventMap[K])
}

async function claudeAgent(
  root: string,
  options: { window?: number; threshold?: number; calls: number; lines: number },
) {
  const work = workScript({ calls: options.calls, lines: options.lines })
  const config: Json = {
    model: { maxRetries: 0, ...(options.window ? { contextWindow: options.window } : {}) },
  }
  if (options.threshold !== undefined) config.compaction = { threshold: options.threshold }
  const t = await start({
    trust: { frontEnd: 'headless', granted: true },
    script: work.script,
    config,
    ...(options.window ? { strict: { contextWindow: options.window } } : {}),
  })
  const agent = await t.harness.agents.create({ sessionId: 'compacting', meta: { cwd: root } })
  const transcript = t.harness.ctx.get('sessionPersistence')!.locate(agent.session.header)!.path
  return { t, work, agent, transcript }
}

/** Index (in the log) of the first `hook/invoked` of `event`. */
function firstInvoked(agent: AgentHandle, event: string): number {
  return agent.session.events.findIndex(
    (e) => e.type === 'hook/invoked' && (e.data as { event: string }).event === event,
  )
}

describe('compaction hooks (Claude Code), published-style scripts', () => {
  it('manual /compact: PreCompact gets trigger and the exact words on a durable transcript; PostCompact and SessionStart(compact) follow, and the context reaches the model', async () => {
    const root = claudeProject()
    const { t, work, agent, transcript } = await claudeAgent(root, { calls: 2, lines: 20 })
    expect(await agent.prompt('work one')).toMatchObject({ reason: 'completed' })
    // Logged but not yet written when /compact comes (the turn's last checkpoint is behind it).
    agent.session.append('context/added', { source: 'test', text: 'a note logged just before /compact' })
    expect(readFileSync(transcript, 'utf8')).not.toContain('a note logged just before /compact')

    const result = await agent.compact({ instructions: 'focus on the tests' })
    expect(result.summarised).toBe(true)

    const [pre] = jsonLines(join(root, '.claude', 'compact.log'))
    expect(pre).toMatchObject({
      session_id: 'compacting',
      transcript_path: transcript,
      cwd: root,
      hook_event_name: 'PreCompact',
      trigger: 'manual',
      custom_instructions: 'focus on the tests',
    })
    // Durable first: every event logged before the hook ran was in the file it read.
    const before = firstInvoked(agent, 'PreCompact')
    expect(before).toBeGreaterThan(0)
    expect(pre!.transcript_lines as number).toBeGreaterThanOrEqual(before)
    const backup = readdirSync(join(root, '.claude', 'backups'))[0]!
    const copy = readFileSync(join(root, '.claude', 'backups', backup), 'utf8')
    expect(copy).toContain('finished: work one')
    expect(copy).toContain('a note logged just before /compact')
    expect(JSON.stringify(work.summaryRequests[0]!.messages)).toContain('focus on the tests')

    const boundary = ofType(agent.session.events, 'context/compacted')
    expect(boundary).toHaveLength(1)
    const [post] = jsonLines(join(root, '.claude', 'post-compact.log'))
    expect(post).toMatchObject({
      hook_event_name: 'PostCompact',
      trigger: 'manual',
      compact_summary: boundary[0]!.summary,
    })
    const [session] = jsonLines(join(root, '.claude', 'session-start.log'))
    expect(session).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'compact',
      session_id: 'compacting',
    })

    // The reloaded context is in the log after the boundary and in the next request.
    expect(await agent.prompt('work two')).toMatchObject({ reason: 'completed' })
    const after = t.model.requests.at(-1)!
    expect(JSON.stringify(after.messages)).toContain(CONTEXT_TEXT)
    const runs = ofType(agent.session.events, 'hook/result').map((r) => r.event)
    expect(runs).toEqual(expect.arrayContaining(['PreCompact', 'PostCompact', 'SessionStart']))
  }, 120_000)

  for (const mode of ['exit2', 'json'] as const) {
    it(`a PreCompact guard that blocks (${mode === 'exit2' ? 'exit 2' : 'decision: block'}) stops a manual compaction`, async () => {
      const root = claudeProject()
      writeFileSync(join(root, '.claude', 'compact-guard'), mode)
      const { agent, work } = await claudeAgent(root, { calls: 1, lines: 10 })
      await agent.prompt('work one')
      const length = agent.session.length

      const error = await agent.compact({ instructions: 'focus on the tests' }).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message: string },
      )
      expect(error?.code).toBe('CONTEXT_COMPACTION_BLOCKED')
      expect(error?.message).toContain('Not now: finish the current task before compacting (manual).')
      expect(ofType(agent.session.events, 'context/compacted')).toHaveLength(0)
      expect(work.summaryRequests).toHaveLength(0)
      // Only the hook runs were logged; no PostCompact or SessionStart(compact) ran.
      const added = agent.session.events.slice(length).map((e) => e.type)
      expect(added.every((type) => type === 'hook/invoked' || type === 'hook/result')).toBe(true)
      expect(existsSync(join(root, '.claude', 'session-start.log'))).toBe(false)
      expect(
        ofType(agent.session.events, 'hook/result').find((r) => r.command.includes('guard')),
      ).toMatchObject({
        event: 'PreCompact',
        decision: 'block',
      })
    })
  }

  it('an automatic compaction fires PreCompact (trigger auto, no words), PostCompact and SessionStart(compact); the manual-only guard does not run', async () => {
    const root = claudeProject()
    writeFileSync(join(root, '.claude', 'compact-guard'), 'exit2')
    const { t, agent } = await claudeAgent(root, { window: WINDOW, calls: 10, lines: 260 })
    // (The scripted model takes the reloaded context, a user message, for a new prompt.)
    expect(await agent.prompt('work one')).toMatchObject({ reason: 'completed' })

    const boundaries = ofType(agent.session.events, 'context/compacted')
    expect(boundaries.length).toBeGreaterThan(0)
    const pres = jsonLines(join(root, '.claude', 'compact.log'))
    expect(pres).toHaveLength(boundaries.length)
    expect(pres.every((p) => p.trigger === 'auto' && p.custom_instructions === '')).toBe(true)
    // Mid-turn, too, the hook read a transcript holding every event logged before it ran.
    expect(pres[0]!.transcript_lines as number).toBeGreaterThanOrEqual(firstInvoked(agent, 'PreCompact'))
    expect(jsonLines(join(root, '.claude', 'post-compact.log')).map((p) => p.trigger)).toEqual(
      boundaries.map(() => 'auto'),
    )
    const starts = jsonLines(join(root, '.claude', 'session-start.log'))
    expect(starts.map((s) => s.source)).toEqual(boundaries.map(() => 'compact'))
    const results = ofType(agent.session.events, 'hook/result')
    expect(results.some((r) => r.command.includes('guard'))).toBe(false)
    // The context added after the last boundary reached the requests after it.
    expect(JSON.stringify(t.model.requests.at(-1)!.messages)).toContain(CONTEXT_TEXT)
  }, 180_000)

  it('a PreCompact hook that blocks an automatic compaction before the limit: it is skipped and the turn goes on uncompacted', async () => {
    const root = project('.claude', {
      PreCompact: [
        {
          matcher: 'auto',
          hooks: [
            { ...hook('pre_compact_guard.py'), command: `python3 ${hook('pre_compact_guard.py').command}` },
          ],
        },
      ],
    })
    writeFileSync(join(root, '.claude', 'compact-guard'), 'json')
    // A low threshold: compaction is wanted long before the window is full.
    const { agent, work } = await claudeAgent(root, { window: WINDOW, threshold: 0.2, calls: 3, lines: 100 })
    expect(await agent.prompt('work one')).toMatchObject({ reason: 'completed', text: 'finished: work one' })
    expect(ofType(agent.session.events, 'context/compacted')).toHaveLength(0)
    expect(work.summaryRequests).toHaveLength(0)
    const blocks = ofType(agent.session.events, 'hook/result').filter((r) => r.event === 'PreCompact')
    expect(blocks.length).toBeGreaterThan(0)
    expect(blocks.every((r) => r.decision === 'block')).toBe(true)
  }, 120_000)
  it("a PreCompact hook that blocks the compaction recovering from the server's context-length error: the error stands, once", async () => {
    const root = project('.claude', {
      PreCompact: [
        {
          matcher: 'auto',
          hooks: [
            { ...hook('pre_compact_guard.py'), command: `python3 ${hook('pre_compact_guard.py').command}` },
          ],
        },
      ],
    })
    writeFileSync(join(root, '.claude', 'compact-guard'), 'exit2')
    // dsh believes in a window four times the server's: the server's 400 comes first.
    const work = workScript({ calls: 10, lines: 260 })
    const t = await start({
      trust: { frontEnd: 'headless', granted: true },
      script: work.script,
      config: { model: { maxRetries: 0, maxTokens: 1024, contextWindow: 4 * WINDOW } },
      strict: { contextWindow: WINDOW },
    })
    const agent = await t.harness.agents.create({ sessionId: 'overflowing', meta: { cwd: root } })
    const result = await agent.prompt('work one')
    expect(result.reason).toBe('error')
    // The server's own error is what the turn ends with (Claude Code: "the underlying error surfaces").
    expect(result.error).toContain('context too long')
    expect(result.error).not.toContain('blocked by a PreCompact hook')
    expect(ofType(agent.session.events, 'context/compacted')).toHaveLength(0)
    expect(work.summaryRequests).toHaveLength(0)
    const blocks = ofType(agent.session.events, 'hook/result').filter((r) => r.event === 'PreCompact')
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toMatchObject({ decision: 'block' })
    // The refused request was not sent again.
    expect(t.model.requests.length).toBe(work.requests.length + 1)
  }, 120_000)
})

describe('compaction hooks (Codex hooks.json)', () => {
  const codexHook = { type: 'command', command: 'python3 .codex/hooks/codex_compact_hook.py' }
  const settings = {
    PreCompact: [{ matcher: 'manual|auto', hooks: [codexHook] }],
    PostCompact: [{ matcher: 'manual', hooks: [codexHook] }],
    SessionStart: [{ matcher: 'compact', hooks: [codexHook] }],
  }

  it('PreCompact and PostCompact get the documented fields, SessionStart(compact) adds context; exit 2 does not block, continue: false does', async () => {
    const root = project('.codex', settings)
    writeFileSync(join(root, '.codex', 'compact-mode'), 'exit2')
    const { t, agent, transcript } = await claudeAgent(root, { calls: 1, lines: 10 })
    await agent.prompt('work one')
    await agent.compact({ instructions: 'focus on the tests' })

    const log = jsonLines(join(root, '.codex', 'compact.log'))
    const turn = `compacting:compact-1`
    expect(log.map((entry) => entry.hook_event_name)).toEqual(['PreCompact', 'PostCompact', 'SessionStart'])
    const model = log[0]!.model
    expect(log[0]).toEqual({
      session_id: 'compacting',
      transcript_path: transcript,
      cwd: root,
      hook_event_name: 'PreCompact',
      model,
      turn_id: turn,
      trigger: 'manual',
    })
    expect(log[1]).toEqual({ ...log[0], hook_event_name: 'PostCompact' })
    expect(log[2]).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'compact',
      permission_mode: 'default',
    })
    expect(ofType(agent.session.events, 'context/compacted')).toHaveLength(1)
    await agent.prompt('work two')
    expect(JSON.stringify(t.model.requests.at(-1)!.messages)).toContain('After compaction (codex)')

    // continue: false stops the next manual compaction.
    writeFileSync(join(root, '.codex', 'compact-mode'), 'stop')
    const error = await agent.compact().then(
      () => undefined,
      (e: unknown) => e as { code?: string; message: string },
    )
    expect(error?.code).toBe('CONTEXT_COMPACTION_BLOCKED')
    expect(error?.message).toContain('compaction paused by policy')
    expect(ofType(agent.session.events, 'context/compacted')).toHaveLength(1)
  }, 120_000)
})
