// What an editor learns over ACP that only stderr used to say: the project-trust question
// (asked with session/request_permission, honoured, failing closed), hook messages and
// block reasons as agent messages, and a session MCP server that failed to start.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import { isTrustedNow, ProjectTrustStore } from '../../../src/trust/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { until } from '../../support/until.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-acp-trust-')
const clients: AcpTestClient[] = []
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
})

/**
 * A git project whose `.claude/settings.json` has a UserPromptSubmit hook leaving a marker
 * file, and the given allow rules.
 */
function hookProject(allow: string[] = []): { root: string; marker: string } {
  const root = tempDir()
  mkdirSync(join(root, '.git'))
  mkdirSync(join(root, '.claude'))
  const marker = join(root, 'hook-ran')
  writeFileSync(
    join(root, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] },
      ...(allow.length > 0 ? { permissions: { allow } } : {}),
    }),
  )
  return { root, marker }
}

type Answer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>

async function connect(harness: Parameters<typeof startAcpClient>[0], answer?: Answer) {
  const client = await startAcpClient(harness, answer)
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
  return client
}

const choose =
  (optionId: string): Answer =>
  () => ({ outcome: { outcome: 'selected', optionId } })

/** Every agent message text the client received, in order. */
function messages(client: AcpTestClient): string[] {
  return client.updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<SessionUpdate, { sessionUpdate: 'agent_message_chunk' }> =>
        update.sessionUpdate === 'agent_message_chunk',
    )
    .map((update) => (update.content.type === 'text' ? update.content.text : ''))
}

async function promptIn(client: AcpTestClient, cwd: string, mcpServers: never[] = []) {
  const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers })
  const response = await client.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'hello' }],
  })
  return { sessionId, response }
}

describe('ACP project trust', () => {
  it('asks with session/request_permission; "always" runs the hooks and is remembered like the CLI', async () => {
    const { root, marker } = hookProject()
    const test = await start({ script: [{ text: 'hi' }] })
    const client = await connect(test.harness, choose('trust_always'))
    const { sessionId } = await promptIn(client, root)
    expect(client.permissionRequests).toHaveLength(1)
    const question = client.permissionRequests[0]!
    expect(question.sessionId).toBe(sessionId)
    expect(question.toolCall.title).toBe(`Trust project folder ${root}?`)
    expect(question.options.map((option) => option.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
    ])
    expect(JSON.stringify(question.toolCall.content)).toContain('1 Claude Code hook (.claude/settings.json)')
    expect(existsSync(marker)).toBe(true)
    expect(isTrustedNow(new ProjectTrustStore(test.home), root)).toBe(true)
    expect(messages(client).join('')).toContain(`Project ${root} is trusted (remembered)`)

    // The asker goes with the connection: afterwards nobody can be asked.
    await clients.pop()!.close()
    const other = hookProject()
    expect(await test.harness.ctx.get('projectTrust')!.decide(other.root)).toMatchObject({
      trusted: false,
      reason: 'cannot-ask',
    })
  })

  it('"once" runs the hooks for this run without remembering the folder', async () => {
    const { root, marker } = hookProject()
    const test = await start({ script: [{ text: 'hi' }] })
    const client = await connect(test.harness, choose('trust_once'))
    await promptIn(client, root)
    expect(existsSync(marker)).toBe(true)
    expect(isTrustedNow(new ProjectTrustStore(test.home), root)).toBe(false)
    expect(messages(client).join('')).toContain(`Project ${root} is trusted for this run`)
  })

  it('"reject" loads nothing: the hook does not run, and the client is told', async () => {
    const { root, marker } = hookProject()
    const test = await start({ script: [{ text: 'hi' }] })
    const client = await connect(test.harness, choose('trust_reject'))
    const { response } = await promptIn(client, root)
    expect(response.stopReason).toBe('end_turn')
    expect(existsSync(marker)).toBe(false)
    expect(isTrustedNow(new ProjectTrustStore(test.home), root)).toBe(false)
    expect(messages(client).join('')).toContain(
      `project ${root}: not trusted (you said no); not loaded: 1 Claude Code hook (.claude/settings.json)`,
    )
  })

  it('fails closed when the client cannot answer (cancelled or an error): nothing loads, nothing is remembered', async () => {
    for (const answer of [
      (() => ({ outcome: { outcome: 'cancelled' } })) as Answer,
      (() => {
        throw new Error('no UI for that')
      }) as Answer,
    ]) {
      // Allow rules too: the permission policy decides trust again while the agent is built.
      const { root, marker } = hookProject(['Bash(touch *)'])
      const test = await start({ script: [{ text: 'hi' }, { text: 'again' }] })
      const client = await connect(test.harness, answer)
      const { sessionId } = await promptIn(client, root)
      expect(client.permissionRequests).toHaveLength(1)
      expect(existsSync(marker)).toBe(false)
      expect(isTrustedNow(new ProjectTrustStore(test.home), root)).toBe(false)
      const policy = test.harness.ctx.get('permissions')!
      expect(policy.stateOf(test.harness.agents.get(sessionId)!).trusted).toBe(false)
      expect(messages(client).join('')).toContain(
        `Project ${root} is not trusted: the trust question could not be answered`,
      )
      // Untrusted for that session only: the next one in the folder is asked again.
      await promptIn(client, root)
      expect(client.permissionRequests).toHaveLength(2)
    }
  })
})

describe('ACP hook messages and MCP start failures', () => {
  it("a hook's systemMessage and its block reason reach the editor as agent messages", async () => {
    const dir = tempDir()
    const settings = join(dir, 'hooks.json')
    const output = JSON.stringify({
      decision: 'block',
      reason: 'a secret was found',
      systemMessage: 'scanner: 1 finding',
    })
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo '${output}'` }] }] },
      }),
    )
    const test = await start({ config: { hooks: { claudeCode: [settings] } }, script: [{ text: 'never' }] })
    const client = await connect(test.harness)
    const { response } = await promptIn(client, dir)
    expect(response.stopReason).toBe('refusal')
    const said = messages(client)
    expect(said).toContain('scanner: 1 finding\n\n')
    expect(
      said.some((text) => text.startsWith('Blocked by a hook:') && text.includes('a secret was found')),
    ).toBe(true)
    expect(test.model.requests).toHaveLength(0)
  })

  it('a session MCP server that fails to start is reported as an agent message with _meta', async () => {
    const dir = tempDir()
    const test = await start({ script: [] })
    const client = await connect(test.harness)
    const { sessionId } = await client.agent.request('session/new', {
      cwd: dir,
      mcpServers: [{ name: 'broken', command: join(dir, 'no-such-server'), args: [], env: [] }],
    })
    await until(() => messages(client).some((text) => text.includes('MCP server broken failed to start')))
    const report = client.updates.find(
      (notification) =>
        notification.update.sessionUpdate === 'agent_message_chunk' &&
        JSON.stringify(notification.update).includes('MCP server broken'),
    )!
    expect(report.sessionId).toBe(sessionId)
    expect(report.update._meta).toMatchObject({ dsh: { mcpServer: { name: 'broken', state: 'failed' } } })
  })
})
