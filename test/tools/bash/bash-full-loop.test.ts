// The keyless full loop: the real agent loop, JSONL persistence, the bash tool and the
// local executor, with only the model scripted — over real HTTP through the
// OpenAI-compatible adapter and the loopback server.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentHandle } from '../../../src/agent/index.js'
import { OpenAiCompatibleAdapter, type Script, type ScriptRequest } from '../../../src/llm/index.js'
import { completedPrefixLength } from '../../../src/session/index.js'
import { BASH_TOOL_DESCRIPTION } from '../../../src/tools/bash/index.js'
import { subagentToolPlugin } from '../../../src/tools/subagent/index.js'
import { parseEnvLines, type ShellTestContext, startShellTestContext } from '../../shell/support.js'
import { type LoopbackModel, startLoopbackModel } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'

const STALE = 'DSH_STALE_SENTINEL'
const KEY = 'LOOPBACK_TEST_API_KEY'
const PROBED = ['DSH_HOME', 'DSH_SHELL', 'DSH_SESSION_ID', 'DSH_SESSION_JSONL', STALE, KEY]
/** Prints every probed variable (`<unset>` when absent) and whether the JSONL file exists. */
const PROBE = `for v in ${PROBED.join(' ')}; do printf '%s=%s\\n' "$v" "\${!v-<unset>}"; done; test -e "$DSH_SESSION_JSONL" && echo file=exists || echo file=absent`

const tempDir = useTempDirs()
const open: (() => Promise<void>)[] = []
const saved: Record<string, string | undefined> = {}
beforeEach(() => {
  // An outer harness's stale managed variable and a credential, both inherited by this process.
  for (const [name, value] of [
    [STALE, 'from-an-outer-harness'],
    [KEY, 'sk-must-not-leak'],
  ] as const) {
    saved[name] = process.env[name]
    process.env[name] = value
  }
})
afterEach(async () => {
  while (open.length > 0) await open.pop()!()
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

async function start(script: Script, options: { subagents?: boolean } = {}) {
  const model: LoopbackModel = await startLoopbackModel(script, { apiKey: 'test-key', strict: true })
  const test: ShellTestContext = await startShellTestContext({
    home: tempDir(),
    backend: 'jsonl',
    plugins: [
      (ctx) =>
        ctx.plugin(OpenAiCompatibleAdapter, { baseUrl: model.baseUrl, apiKey: 'test-key', maxRetries: 0 }),
      ...(options.subagents
        ? [(ctx: ShellTestContext['ctx']) => ctx.plugin(subagentToolPlugin, { maxDepth: 2 })]
        : []),
    ],
  })
  open.push(async () => {
    await test.dispose()
    await model.close()
  })
  return { test, model }
}

const lastMessage = (request: ScriptRequest) => request.messages.at(-1)!
/** Replies with the last tool result as text (so `TurnResult.text` carries it), else runs the probe. */
const probeThenEcho = (request: ScriptRequest) =>
  lastMessage(request).role === 'tool'
    ? { text: lastMessage(request).content ?? '' }
    : { toolCalls: [{ name: 'bash', arguments: { command: PROBE, description: 'print managed variables' } }] }

function toolResults(agent: AgentHandle): string[] {
  return agent.session.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)
}

function expectOwnValues(test: ShellTestContext, agent: AgentHandle, output: string) {
  const seen = parseEnvLines(output)
  const location = test.ctx.get('sessionPersistence')!.locate(agent.session.header)!
  expect(location.kind).toBe('jsonl')
  expect(seen).toMatchObject({
    DSH_HOME: test.home,
    DSH_SHELL: test.ctx.get('shell')!.shellPath,
    DSH_SESSION_ID: agent.session.header.id,
    DSH_SESSION_JSONL: location.path,
    [STALE]: '<unset>',
    [KEY]: '<unset>',
  })
  return seen
}

function firstLine(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!)
}

describe('bash in the full agent loop (keyless)', () => {
  it('gives the first turn its own managed variables and none inherited; the log lands where DSH_SESSION_JSONL said', async () => {
    const { test, model } = await start([probeThenEcho, probeThenEcho])
    const agent = await test.createAgent('first-turn-session', tempDir())
    const path = test.ctx.get('sessionPersistence')!.locate(agent.session.header)!.path
    expect(existsSync(path)).toBe(false) // lazy: nothing is written before the first checkpoint

    const result = await agent.prompt('which session is this?')
    expect(result.reason).toBe('completed')
    const [output] = toolResults(agent)
    const seen = expectOwnValues(test, agent, output!)
    // The durability checkpoint before the model request has materialized the file by the
    // time the tool runs; DSH_SESSION_JSONL itself promises only a location.
    expect(seen.file).toBe('exists')
    expect(result.text).toBe(output)

    expect(existsSync(path)).toBe(true)
    expect(firstLine(path)).toMatchObject({ type: 'session', id: 'first-turn-session' })
    const logged = readFileSync(path, 'utf8')
    expect(logged).toContain('"type":"tool/result"')
    expect(logged).not.toContain('sk-must-not-leak')

    // The model saw the bash tool with its generic description, and it is in the recorded request config.
    const bash = model.requests[0]!.tools!.find((tool) => tool.function.name === 'bash')!
    expect(bash.function.description).toBe(BASH_TOOL_DESCRIPTION)
    const config = agent.session.events.find((event) => event.type === 'request/config')!
    expect(JSON.stringify(config.data)).toContain(JSON.stringify(BASH_TOOL_DESCRIPTION))
  })

  it('keeps id and path on resume, and gives a fork a new id and a new path', async () => {
    const { test } = await start(Array.from({ length: 6 }, () => probeThenEcho))
    const cwd = tempDir()
    const agents = test.ctx.get('agents')!
    const original = await agents.create({ sessionId: 'resumable', meta: { cwd } })
    const before = parseEnvLines((await original.prompt('probe')).text)
    await agents.dispose('resumable')

    const resumed = await agents.resume({ resumeSessionId: 'resumable' })
    const after = expectOwnValues(test, resumed, (await resumed.prompt('probe again')).text)
    expect(after.DSH_SESSION_ID).toBe(before.DSH_SESSION_ID)
    expect(after.DSH_SESSION_JSONL).toBe(before.DSH_SESSION_JSONL)

    const fork = await agents.create({
      sessionId: 'resumable-fork',
      meta: { cwd, parentSession: resumed.id },
      seed: resumed.session.events.slice(0, completedPrefixLength(resumed.session.events)),
    })
    const forked = expectOwnValues(test, fork, (await fork.prompt('probe in the fork')).text)
    expect(forked.DSH_SESSION_ID).toBe('resumable-fork')
    expect(forked.DSH_SESSION_JSONL).not.toBe(before.DSH_SESSION_JSONL)
    expect(firstLine(forked.DSH_SESSION_JSONL!)).toMatchObject({
      id: 'resumable-fork',
      parentSession: 'resumable',
    })
    expect(firstLine(before.DSH_SESSION_JSONL!)).toMatchObject({ id: 'resumable' })
  })

  it('a command reading $DSH_SESSION_JSONL finds its own tool/call line (durability checkpoint before the body)', async () => {
    // The marker is part of the command, so it is in this call's own tool/call line.
    const command = `grep -F '"type":"tool/call"' "$DSH_SESSION_JSONL" | grep -c 'own-call-7c1e'`
    const { test } = await start([
      { toolCalls: [{ name: 'bash', arguments: { command } }] },
      (request) => ({ text: lastMessage(request).content ?? '' }),
    ])
    const agent = await test.createAgent('checkpoint-session', tempDir())
    const result = await agent.prompt('read your own log')
    expect(result.reason).toBe('completed')
    expect(toolResults(agent)[0]!.trim()).toBe('1')
  })

  it('gives a parent and its sub-agent their own values while their commands overlap', async () => {
    const marker = join(tempDir(), 'child-ran')
    // The parent's background job starts first and finishes only after the child's command ran.
    const parentJob = `for i in $(seq 1 500); do test -e ${marker} && break; sleep 0.02; done; ${PROBE}`
    let childId = ''
    const { test } = await start(
      [
        { toolCalls: [{ name: 'bash', arguments: { command: parentJob, run_in_background: true } }] },
        {
          toolCalls: [
            { name: 'subagent', arguments: { description: 'probe', prompt: 'child: run the probe' } },
          ],
        },
        { toolCalls: [{ name: 'bash', arguments: { command: `${PROBE}; touch ${marker}` } }] },
        (request) => ({ text: lastMessage(request).content ?? '' }),
        (request) => {
          childId = /\[sub-agent session (.+)\]/.exec(lastMessage(request).content ?? '')![1]!
          return { text: 'parent done' }
        },
      ],
      { subagents: true },
    )
    const parent = await test.createAgent('parent-session', tempDir())
    expect((await parent.prompt('delegate')).reason).toBe('completed')

    const [started, delegated] = toolResults(parent)
    const jobId = /^started background job (\S+)/.exec(started!)![1]!
    const job = test.ctx.get('shell')!.job(jobId)!
    const parentSeen = expectOwnValues(test, parent, (await job.done).stdout.text)

    const childHeader = (await test.ctx.get('sessionPersistence')!.load(childId)).header
    expect(childHeader).toMatchObject({
      parentSession: 'parent-session',
      origin: 'subagent',
      delegationDepth: 1,
    })
    const childSeen = parseEnvLines(delegated!)
    expect(childSeen.DSH_SESSION_ID).toBe(childId)
    expect(childSeen.DSH_SESSION_JSONL).toBe(test.ctx.get('sessionPersistence')!.locate(childHeader)!.path)
    expect(childSeen.DSH_SESSION_JSONL).not.toBe(parentSeen.DSH_SESSION_JSONL)
    expect(childSeen[STALE]).toBe('<unset>')
    expect(childSeen[KEY]).toBe('<unset>')
    expect(firstLine(childSeen.DSH_SESSION_JSONL!)).toMatchObject({ type: 'session', id: childId })
  })

  it('runs bash for 20 agents at once, each seeing only its own id and path', async () => {
    const { test } = await start(Array.from({ length: 40 }, () => probeThenEcho))
    const cwds = [tempDir(), tempDir()]
    const agents = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        test.createAgent(i % 5 === 0 ? `agent ${i}/ü~` : `agent-${i}`, cwds[i % 2]),
      ),
    )
    const results = await Promise.all(agents.map((agent) => agent.prompt('probe')))
    const paths = new Set<string>()
    results.forEach((result, i) => {
      expect(result.reason).toBe('completed')
      const seen = expectOwnValues(test, agents[i]!, result.text)
      paths.add(seen.DSH_SESSION_JSONL!)
      expect(firstLine(seen.DSH_SESSION_JSONL!)).toMatchObject({ id: agents[i]!.id })
    })
    expect(paths.size).toBe(20)
  })
})
