// ACP session/load with a short id (the SDK client): a unique prefix of 6+ characters loads
// the stored session, which then answers prompts under the name the client used; an
// ambiguous prefix is an error naming the candidates, a short one "session not found".

import { realpathSync } from 'node:fs'
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
