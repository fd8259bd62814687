// A sub-agent's permission mode through the real loop (loopback model, real bash): it runs
// in its live parent's current mode, follows the parent's changes mid-turn, and a resume
// of its session on its own keeps the mode its log recorded.

import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ScriptOutcome, ScriptRequest } from '../../src/llm/index.js'
import type { AgentHandle } from '../../src/plugin-api/index.js'
import { sessionSettings } from '../../src/session/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-subagent-mode-')

/** A project folder (a `.git` marker) inside a temporary folder. */
function project(): string {
  const cwd = join(tempDir(), 'proj')
  mkdirSync(join(cwd, '.git'), { recursive: true })
  return cwd
}

/** The last user prompt of a request: which agent (parent turn or child task) is asking. */
const promptOf = (request: ScriptRequest) =>
  request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? ''
/** Whether the request answers tool results (the agent's second step and later). */
const answered = (request: ScriptRequest) => request.messages.at(-1)?.role === 'tool'
/** Plays `route` for every request, whichever agent sends it and in whatever order. */
const routed = (route: (request: ScriptRequest) => ScriptOutcome, steps = 20) =>
  Array.from({ length: steps }, () => route)
const subagent = (prompt: string, fork = false) => ({
  name: 'subagent',
  arguments: { description: prompt.toLowerCase(), prompt, fork },
})
const bash = (command: string) => ({ name: 'bash', arguments: { command } })

/** The tool results of a log, in order. */
const resultsOf = (agent: AgentHandle | { events: readonly { type: string; data: unknown }[] }) =>
  ('session' in agent ? agent.session.events : agent.events)
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)

describe("a sub-agent's permission mode", () => {
  it("a forked and a plain sub-agent run in the parent's current mode, not the one the fork's seed recorded; a resume on its own keeps its logged mode", async () => {
    const cwd = project()
    const home = tempDir()
    const forkTouch = join(cwd, 'fork-touched')
    const plainTouch = join(cwd, 'plain-touched')
    const test = await start({
      home,
      // The parent may delegate in default mode; nobody can be asked, so an `ask` is a deny.
      config: { permissions: { allow: ['Agent'] } },
      script: routed((request) => {
        const prompt = promptOf(request)
        if (prompt === 'T1') return { text: 'hello' }
        if (prompt === 'T2')
          return answered(request)
            ? { text: 'done' }
            : { toolCalls: [subagent('FORK', true), subagent('PLAIN')] }
        if (answered(request)) return { text: `${prompt} child done` }
        return { toolCalls: [bash(`touch ${prompt === 'FORK' ? forkTouch : plainTouch}`)] }
      }),
    })
    const { harness } = test
    const parent = await harness.agents.create({ sessionId: 'mode-parent', meta: { cwd } })
    expect((await parent.prompt('T1')).reason).toBe('completed')
    expect(harness.ctx.permissions.modeOf(parent)).toBe('auto')
    // Between turns, as ACP's session/set_mode or Shift-Tab: logged after turn 1's end, so a
    // fork's seed (the completed turns) still says `auto`.
    harness.ctx.permissions.setMode(parent, 'default')
    expect((await parent.prompt('T2')).reason).toBe('completed')

    const children = (await harness.sessions.listStored()).filter(
      (summary) => summary.header.parentSession === 'mode-parent',
    )
    const seen: Record<string, { result?: string; mode?: string }> = {}
    for (const summary of children) {
      const log = await harness.sessions.read(summary.header.id)
      // The child's log records the mode it ran in.
      seen[(summary.header.seedLength ?? 0) > 0 ? 'fork' : 'plain'] = {
        result: resultsOf(log)[0],
        mode: sessionSettings(log).mode,
      }
    }
    const refused = {
      result: expect.stringContaining('Bash needs approval in default mode'),
      mode: 'default',
    }
    expect(seen).toEqual({ fork: refused, plain: refused })
    expect(existsSync(forkTouch)).toBe(false)
    expect(existsSync(plainTouch)).toBe(false)

    // The fork child resumed later on its own (its parent not live): a resume, not a spawn.
    const forked = children.find((summary) => (summary.header.seedLength ?? 0) > 0)!
    await test.close()
    const again = await start({ home, script: [] })
    const resumed = await again.harness.agents.resume({ resumeSessionId: forked.header.id })
    expect(again.harness.ctx.permissions.modeOf(resumed)).toBe('default')
  })

  it('a mode change reaches running sub-agents and theirs from their next tool call on: narrowing and widening', async () => {
    const cwd = project()
    const narrowed = join(cwd, 'narrowed')
    let parent: AgentHandle | undefined
    const test = await start({
      script: routed((request) => {
        const prompt = promptOf(request)
        if (prompt === 'TOP') return answered(request) ? { text: 'done' } : { toolCalls: [subagent('CHILD')] }
        if (prompt === 'CHILD')
          return answered(request) ? { text: 'child done' } : { toolCalls: [subagent('GRANDCHILD')] }
        if (answered(request)) return { text: 'grandchild done' }
        // Mid-turn, while the grandchild runs: the user narrows the top agent's mode.
        test.harness.ctx.permissions.setMode(parent!, 'plan')
        return { toolCalls: [bash(`touch ${narrowed}`)] }
      }),
    })
    const changes: string[] = []
    test.harness.ctx.on('permissions/mode-changed', (agent, mode) => {
      changes.push(`${agent.id.split('-sub-').length - 1} ${mode}`)
    })
    parent = await test.harness.agents.create({ sessionId: 'narrow', meta: { cwd } })
    expect((await parent.prompt('TOP')).reason).toBe('completed')
    const grandchild = (await test.harness.sessions.listStored()).find(
      (summary) => summary.header.delegationDepth === 2,
    )!
    const log = await test.harness.sessions.read(grandchild.header.id)
    expect(resultsOf(log)[0]).toMatch(/^Tool call denied: plan mode is on/)
    expect(existsSync(narrowed)).toBe(false)
    expect(sessionSettings(log).mode).toBe('plan')
    expect(changes).toEqual(['0 plan', '1 plan', '2 plan'])

    // Widening: sub-agents follow the parent's mode both ways.
    const widened = join(cwd, 'widened')
    let asker: AgentHandle | undefined
    const wide = await start({
      config: { permissions: { mode: 'default', allow: ['Agent'] } },
      script: routed((request) => {
        const prompt = promptOf(request)
        if (prompt === 'TOP') return answered(request) ? { text: 'done' } : { toolCalls: [subagent('CHILD')] }
        if (answered(request)) return { text: 'child done' }
        wide.harness.ctx.permissions.setMode(asker!, 'auto')
        return { toolCalls: [bash(`touch ${widened}`)] }
      }),
    })
    asker = await wide.harness.agents.create({ sessionId: 'widen', meta: { cwd } })
    expect((await asker.prompt('TOP')).reason).toBe('completed')
    expect(existsSync(widened)).toBe(true)
  })

  it('a sub-agent cannot leave plan mode on its own: its parent decides its mode', async () => {
    const cwd = project()
    let parent: AgentHandle | undefined
    let child: AgentHandle | undefined
    const asked: string[] = []
    const test = await start({
      permissions: { frontEnd: 'interactive', canAsk: true },
      script: routed((request) => {
        const prompt = promptOf(request)
        if (prompt === 'TOP') return answered(request) ? { text: 'done' } : { toolCalls: [subagent('CHILD')] }
        if (answered(request)) return { text: 'child done' }
        test.harness.ctx.permissions.setMode(parent!, 'plan')
        return { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: '1. touch it' } }] }
      }),
    })
    test.harness.ctx.on('tools/approve', (call) => {
      asked.push(call.name)
      return true
    })
    test.harness.ctx.on('subagent/start', (_parent, started) => {
      child = started
    })
    parent = await test.harness.agents.create({ sessionId: 'stay', meta: { cwd } })
    await parent.prompt('TOP')
    expect(asked).toEqual([])
    expect(resultsOf(child!)[0]).toMatch(/^Tool call denied: .*sub-agent/)
    expect(test.harness.ctx.permissions.modeOf(parent)).toBe('plan')
    expect(test.harness.ctx.permissions.modeOf(child!)).toBe('plan')
  })
})
