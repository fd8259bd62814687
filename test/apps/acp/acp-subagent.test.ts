// The ACP sub-agent backend delegating to our own `dsh acp`: in-process over streams, and
// as a spawned process (the built server), with lifecycle ids minted in the parent namespace.

import { existsSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { runAcpServer } from '../../../src/apps/acp/index.js'
import { nodeNdJsonStream } from '../../../src/apps/acp/streams.js'
import type { Script, ScriptRequest } from '../../../src/llm/index.js'
import {
  type AcpAgentConnector,
  type AcpSubagentConfig,
  acpSubagentToolPlugin,
} from '../../../src/tools/subagent/acp-backend.js'
import { type TestHarness, useTestHarnesses } from '../../support/harness.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'

const start = useTestHarnesses()
const tempHome = useTempDirs('dsh-home-')

/** Connects the tool to `runAcpServer` on another harness, in-process. */
function inProcess(child: TestHarness): AcpAgentConnector {
  return () => {
    const toAgent = new PassThrough()
    const fromAgent = new PassThrough()
    const done = runAcpServer({ harness: child.harness, input: toAgent, output: fromAgent })
    return {
      stream: nodeNdJsonStream(fromAgent, toAgent),
      failure: () => undefined,
      async close() {
        toAgent.end()
        await done
      },
    }
  }
}

const delegateCall = {
  toolCalls: [{ name: 'acp_subagent', arguments: { description: 'side task', prompt: 'count the files' } }],
}
const toolResult = (request: ScriptRequest) =>
  [...request.messages].reverse().find((message) => message.role === 'tool')?.content ?? ''

async function parentWith(config: AcpSubagentConfig, script: Script) {
  const parent = await start({ script })
  await parent.harness.ctx.plugin(acpSubagentToolPlugin, config).await()
  const lifecycle: string[] = []
  parent.harness.ctx.on('subagent/acp-start', (_agent, info) => {
    lifecycle.push(`start ${info.lifecycleId}`)
  })
  parent.harness.ctx.on('subagent/acp-stop', (_agent, info) => {
    lifecycle.push(`stop ${info.lifecycleId} ${info.stopReason}`)
  })
  return { parent, lifecycle }
}

describe('ACP sub-agent backend', () => {
  it('delegates to dsh acp; the lifecycle id is the parent’s, the wire session id stays private', async () => {
    const child = await start({ script: [{ text: 'I looked around.' }] })
    const { parent, lifecycle } = await parentWith({ command: 'unused', connect: inProcess(child) }, [
      delegateCall,
      (request) => ({ text: `parent got: ${toolResult(request)}` }),
    ])
    const agent = await parent.harness.agents.create({ sessionId: 'parent-1', meta: { cwd: parent.home } })
    const result = await agent.prompt('delegate it')
    expect(result.reason).toBe('completed')

    const toolEvent = agent.session.events.find((event) => event.type === 'tool/result')!
    const content = (toolEvent.data as { content: string }).content
    const lifecycleId = /^\[acp sub-agent (parent-1-acp-[0-9a-f-]{36})\]\n/.exec(content)?.[1]
    expect(lifecycleId).toBeDefined()
    expect(content).toContain('I looked around.')
    expect(lifecycle).toEqual([`start ${lifecycleId}`, `stop ${lifecycleId} end_turn`])

    // The child ran under its own wire-level id, which never reached the parent's log.
    const stored = await child.harness.sessions.listStored()
    expect(stored).toHaveLength(1)
    const wireId = stored[0]!.header.id
    expect(wireId).toMatch(/^acp-session-/)
    expect(stored[0]!.header.cwd).toBe(parent.home)
    expect(JSON.stringify(agent.session.events)).not.toContain(wireId)
    expect(child.model.requests[0]!.messages.at(-1)?.content).toBe('count the files')
  })

  it('cancelling the parent turn cancels the delegated prompt', async () => {
    const child = await start({ script: [{ text: 'slow', delayMs: 10_000 }] })
    const { parent, lifecycle } = await parentWith({ command: 'unused', connect: inProcess(child) }, [
      delegateCall,
    ])
    const agent = await parent.harness.agents.create({ sessionId: 'parent-2' })
    const turn = agent.prompt('delegate and wait')
    await vi.waitFor(() => expect(child.model.requests).toHaveLength(1))
    agent.cancel()
    expect((await turn).reason).toBe('aborted')
    expect(lifecycle.at(-1)).toMatch(/^stop parent-2-acp-.* cancelled$/)
    expect(child.harness.agents.list()).toEqual([])
  })

  it('reports a command that cannot start as a tool error', async () => {
    const { parent } = await parentWith({ command: '/definitely/not/an/agent' }, [
      delegateCall,
      (request) => ({ text: toolResult(request) }),
    ])
    const agent = await parent.harness.agents.create({ sessionId: 'parent-3', meta: { cwd: parent.home } })
    const result = await agent.prompt('try')
    expect(result.text).toContain('The ACP sub-agent failed')
    expect(result.text).toContain('ENOENT')
  })

  const fixture = fileURLToPath(new URL('./fixtures/acp-agent.mjs', import.meta.url))
  const built = existsSync(fileURLToPath(new URL('../../../dist/src/apps/acp/index.js', import.meta.url)))
  itRequires(built, 'a build (npm run build)')(
    'delegates to a spawned dsh acp process (the built server)',
    async () => {
      const childHome = tempHome()
      const { parent } = await parentWith(
        {
          command: process.execPath,
          args: [fixture],
          env: {
            ACP_FIXTURE_HOME: childHome,
            ACP_FIXTURE_SCRIPT: JSON.stringify([{ text: 'answer from another process' }]),
          },
        },
        [delegateCall, (request) => ({ text: toolResult(request) })],
      )
      const agent = await parent.harness.agents.create({ sessionId: 'parent-4', meta: { cwd: parent.home } })
      const result = await agent.prompt('delegate to a process')
      expect(result.reason).toBe('completed')
      expect(result.text).toMatch(
        /^\[acp sub-agent parent-4-acp-[0-9a-f-]{36}\]\nanswer from another process$/,
      )
    },
  )
})
