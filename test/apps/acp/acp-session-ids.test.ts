// ACP session/load with a short id (the SDK client): a unique prefix of 6+ characters loads
// the stored session, which is then served under the name the client used (every update and
// question); an ambiguous prefix is an error naming the candidates, a short one "session not found".

import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { afterEach, expect, it } from 'vitest'
import { startTestHarness, type TestHarness } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const open: TestHarness[] = []
const clients: AcpTestClient[] = []
const tempDir = useTempDirs('dsh-acp-ids-')

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close()
  for (const test of open.splice(0)) await test.close()
})

it('session/load takes a unique id prefix; ambiguous and short ones are refused', async () => {
  const home = realpathSync(tempDir())
  const test = await startTestHarness({ home, script: [{ text: 'loaded answer' }] })
  open.push(test)
  for (const id of ['acpacp-one', 'acpacp-two']) {
    const session = await test.harness.sessions.create({ id, cwd: home })
    session.append('turn/start', { turn: 1 })
    session.append('user/message', { text: `prompt of ${id}` })
    session.append('turn/end', { turn: 1, reason: 'completed' })
    await test.harness.sessions.close(session)
  }
  const client = await startAcpClient(test.harness, () => ({ outcome: { outcome: 'cancelled' } }))
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })

  await expect(
    client.agent.request('session/load', { sessionId: 'acpacp', cwd: home, mcpServers: [] }),
  ).rejects.toMatchObject({
    message: expect.stringContaining('session id prefix "acpacp" is ambiguous: acpacp-one, acpacp-two'),
  })
  await expect(
    client.agent.request('session/load', { sessionId: 'acpac', cwd: home, mcpServers: [] }),
  ).rejects.toMatchObject({ code: -32002 })

  await client.agent.request('session/load', { sessionId: 'acpacp-o', cwd: home, mcpServers: [] })
  expect(test.harness.agents.get('acpacp-one')).toBeDefined()
  const answer = await client.agent.request('session/prompt', {
    sessionId: 'acpacp-o',
    prompt: [{ type: 'text', text: 'go on' }],
  })
  expect(answer.stopReason).toBe('end_turn')
  expect(
    test.harness.agents.get('acpacp-one')!.session.events.filter((e) => e.type === 'user/message'),
  ).toHaveLength(2)
})

it('a session loaded by a prefix gets every message under that prefix: questions, modes, tool status', async () => {
  const home = realpathSync(tempDir())
  // A project whose allow rule makes session/load ask the trust question.
  const cwd = join(home, 'proj')
  mkdirSync(join(cwd, '.claude'), { recursive: true })
  writeFileSync(
    join(cwd, '.claude', 'settings.json'),
    JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }),
  )
  const test = await startTestHarness({
    home,
    script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo ran' } }] }, { text: 'done' }],
    permissions: { canAsk: true, frontEnd: 'interactive' },
  })
  open.push(test)
  const session = await test.harness.sessions.create({ id: 'acpacp-three', cwd })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { text: 'first' })
  session.append('turn/end', { turn: 1, reason: 'completed' })
  await test.harness.sessions.close(session)
  const client = await startAcpClient(test.harness, (request) => ({
    outcome: {
      outcome: 'selected',
      optionId: request.options.some((option) => option.optionId === 'trust_once')
        ? 'trust_once'
        : 'allow_once',
    },
  }))
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })

  const name = 'acpacp-th'
  await client.agent.request('session/load', { sessionId: name, cwd, mcpServers: [] })
  await client.agent.request('session/set_mode', { sessionId: name, modeId: 'default' })
  const answer = await client.agent.request('session/prompt', {
    sessionId: name,
    prompt: [{ type: 'text', text: 'run it' }],
  })
  expect(answer.stopReason).toBe('end_turn')
  expect(client.permissionRequests.map((request) => request.toolCall.title)).toEqual([
    expect.stringContaining('Trust project folder'),
    expect.stringContaining('echo ran'),
  ])
  expect(client.permissionRequests.map((request) => request.sessionId)).toEqual([name, name])
  const kinds = client.updates.map(({ update }) =>
    update.sessionUpdate === 'tool_call_update' ? `tool_call_update:${update.status}` : update.sessionUpdate,
  )
  expect(kinds).toEqual(expect.arrayContaining(['current_mode_update', 'tool_call_update:in_progress']))
  expect(new Set(client.updates.map((update) => update.sessionId))).toEqual(new Set([name]))
})
