// ACP session modes are dsh's permission modes: driven by the SDK's client against the real
// composition and the loopback model, a mode must change what is asked and what is refused.

import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROTOCOL_VERSION, type RequestPermissionRequest } from '@agentclientprotocol/sdk'
import { afterEach, expect, it } from 'vitest'
import { hasListeners } from '../../../src/core/service-ref.js'
import {
  PERMISSION_MODE_DESCRIPTIONS,
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
} from '../../../src/permissions/index.js'
import { startTestHarness, type TestHarness } from '../../support/harness.js'
import type { Script } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const open: TestHarness[] = []
const clients: AcpTestClient[] = []
const tempDir = useTempDirs('dsh-acp-modes-')
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
  while (open.length > 0) await open.pop()!.close()
})

/** A harness as `dsh acp` composes it (an editor can be asked), its mode from the config. */
/** `flagMode`: the mode as `--permission-mode` gives it, which wins over a resumed session's own. */
async function start(mode: string, script: Script, home?: string, flagMode?: PermissionMode) {
  const test = await startTestHarness({
    script,
    ...(home ? { home } : {}),
    config: { permissions: { mode } },
    permissions: { canAsk: true, frontEnd: 'interactive', ...(flagMode ? { mode: flagMode } : {}) },
  })
  open.push(test)
  return test
}

/** Answers permission requests from `answers` in order (rejecting once they run out). */
async function connect(test: TestHarness, answers: string[] = []) {
  const client = await startAcpClient(test.harness, () => ({
    outcome: { outcome: 'selected', optionId: answers.shift() ?? 'reject_once' },
  }))
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
  return client
}

function project(): string {
  const cwd = join(realpathSync(tempDir()), 'proj')
  mkdirSync(join(cwd, '.git'), { recursive: true })
  writeFileSync(join(cwd, 'notes.txt'), 'one\n')
  return cwd
}

const read = (file_path: string) => ({ name: 'read', arguments: { file_path } })
const edit = (file_path: string, old_string: string, new_string: string) => ({
  name: 'edit',
  arguments: { file_path, old_string, new_string },
})
const bash = (command: string) => ({ name: 'bash', arguments: { command } })
const write = (file_path: string, content: string) => ({ name: 'write', arguments: { file_path, content } })

const modeUpdates = (client: AcpTestClient) =>
  client.updates
    .map((notification) => notification.update)
    .filter((update) => update.sessionUpdate === 'current_mode_update')
    .map((update) => update.currentModeId)

const askedTitles = (requests: RequestPermissionRequest[]) => requests.map((r) => r.toolCall.title)

it('session/new carries every permission mode with the configured one current; set_mode changes what is asked and refused', async () => {
  const cwd = project()
  const test = await start('default', [
    // Turn 1, default mode: reading runs, the edit asks.
    { toolCalls: [read('notes.txt'), edit('notes.txt', 'one', 'two')] },
    { text: 'edited after asking' },
    // Turn 2, acceptEdits: the edit runs without asking, bash still asks (and is rejected).
    { toolCalls: [edit('notes.txt', 'two', 'three'), bash('echo ran > ran.txt')] },
    { text: 'edited without asking' },
    // Turn 3, plan: a write is refused without asking anyone.
    { toolCalls: [write('new.txt', 'x')] },
    { text: 'plan: create new.txt' },
  ])
  const client = await connect(test, ['allow_once', 'reject_once'])

  const created = await client.agent.request('session/new', { cwd, mcpServers: [] })
  expect(created.modes).toEqual({
    currentModeId: 'default',
    availableModes: PERMISSION_MODES.map((id) => ({
      id,
      name: PERMISSION_MODE_NAMES[id],
      description: PERMISSION_MODE_DESCRIPTIONS[id],
    })),
  })
  const { sessionId } = created
  const prompt = (text: string) =>
    client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

  expect((await prompt('edit the notes')).stopReason).toBe('end_turn')
  expect(askedTitles(client.permissionRequests)).toEqual([expect.stringContaining('notes.txt')])
  expect(client.permissionRequests[0]!.toolCall.kind).toBe('edit')
  expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('two\n')

  expect(await client.agent.request('session/set_mode', { sessionId, modeId: 'acceptEdits' })).toEqual({})
  // The update arrives before the answer.
  expect(modeUpdates(client)).toEqual(['acceptEdits'])
  expect(test.harness.ctx.permissions.modeOf(test.harness.agents.get(sessionId)!)).toBe('acceptEdits')
  expect((await prompt('edit again and run it')).stopReason).toBe('end_turn')
  expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('three\n')
  expect(askedTitles(client.permissionRequests).slice(1)).toEqual([expect.stringContaining('echo ran')])
  expect(() => readFileSync(join(cwd, 'ran.txt'))).toThrow()

  await client.agent.request('session/set_mode', { sessionId, modeId: 'plan' })
  expect(modeUpdates(client)).toEqual(['acceptEdits', 'plan'])
  expect((await prompt('plan it')).stopReason).toBe('end_turn')
  expect(client.permissionRequests).toHaveLength(2)
  expect(() => readFileSync(join(cwd, 'new.txt'))).toThrow()
  const results = test.harness.agents
    .get(sessionId)!
    .session.events.filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: string }).content)
  expect(results.at(-1)).toMatch(/^Tool call denied: plan mode is on/)
  expect(JSON.stringify(test.model.requests.at(-2)!.messages)).toContain('Plan mode is on')
})

it('a mode set mid-turn applies from the next tool call on', async () => {
  const cwd = project()
  const test = await start('default', [
    { toolCalls: [write('a.txt', 'a\n')] },
    { toolCalls: [write('b.txt', 'b\n')] },
    { text: 'both written' },
  ])
  let client: AcpTestClient | undefined
  let sessionId = ''
  // Asked about a.txt, the editor switches to acceptEdits before allowing it.
  client = await startAcpClient(test.harness, async () => {
    await client!.agent.request('session/set_mode', { sessionId, modeId: 'acceptEdits' })
    return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
  })
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
  sessionId = (await client.agent.request('session/new', { cwd, mcpServers: [] })).sessionId
  const response = await client.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'write both' }],
  })
  expect(response.stopReason).toBe('end_turn')
  expect(askedTitles(client.permissionRequests)).toEqual([expect.stringContaining('a.txt')])
  expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('a\n')
  expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('b\n')
  expect(modeUpdates(client)).toEqual(['acceptEdits'])
})

it('set_mode refuses an unknown mode (invalid params naming it) and an unknown session; changes made elsewhere are reported', async () => {
  const test = await start('auto', [])
  const client = await connect(test)
  const { sessionId, modes } = await client.agent.request('session/new', { cwd: project(), mcpServers: [] })
  expect(modes?.currentModeId).toBe('auto')

  const refused = client.agent.request('session/set_mode', { sessionId, modeId: 'yolo' })
  await expect(refused).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('unknown session mode "yolo"'),
    data: { modeId: 'yolo', availableModes: [...PERMISSION_MODES] },
  })
  await expect(
    client.agent.request('session/set_mode', { sessionId: 'no-such-session', modeId: 'plan' }),
  ).rejects.toMatchObject({ code: -32002 })
  const policy = test.harness.ctx.permissions
  const agent = test.harness.agents.get(sessionId)!
  expect(policy.modeOf(agent)).toBe('auto')
  expect(modeUpdates(client)).toEqual([])

  // Another front end (chat's /permissions) switching this session is reported; the same mode again is no change.
  policy.setMode(agent, 'bypassPermissions')
  policy.setMode(agent, 'bypassPermissions')
  const other = await test.harness.agents.create({ sessionId: 'not-served-here' })
  policy.setMode(other, 'plan')
  await client.agent.request('session/set_mode', { sessionId, modeId: 'default' })
  expect(modeUpdates(client)).toEqual(['bypassPermissions', 'default'])
  expect(client.updates.every((notification) => notification.sessionId === sessionId)).toBe(true)

  // Once the connection is gone its listener is too.
  expect(hasListeners(test.harness.ctx, 'permissions/mode-changed')).toBe(true)
  await clients.pop()!.close()
  expect(hasListeners(test.harness.ctx, 'permissions/mode-changed')).toBe(false)
})

it('session/load answers the modes of the resumed session: the mode it recorded, unless the run has a --permission-mode', async () => {
  const home = realpathSync(tempDir())
  const cwd = project()
  const first = await start('auto', [{ text: 'hello' }], home)
  const client = await connect(first)
  const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] })
  await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
  await clients.pop()!.close()
  await open.pop()!.close()

  // The config's mode is for new sessions: the resumed one restores the mode it recorded.
  const second = await start('acceptEdits', [], home)
  const again = await connect(second)
  const restored = await again.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
  expect(restored.modes?.currentModeId).toBe('auto')
  await clients.pop()!.close()
  await open.pop()!.close()

  const third = await start('auto', [], home, 'acceptEdits')
  const flagged = await connect(third)
  const loaded = await flagged.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
  expect(loaded.modes?.currentModeId).toBe('acceptEdits')
  expect(loaded.modes?.availableModes.map((mode) => mode.id)).toEqual([...PERMISSION_MODES])
})
