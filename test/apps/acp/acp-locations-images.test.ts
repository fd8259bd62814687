// ACP tool calls editors can follow (`locations` with absolute path and line; `pending` until
// allowed), and a loaded session's image prompts replayed as `image` blocks.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROTOCOL_VERSION, type SessionUpdate } from '@agentclientprotocol/sdk'
import { afterEach, expect, it } from 'vitest'
import { useTestHarnesses } from '../../support/harness.js'
import { pngImage } from '../../support/images.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { type AcpTestClient, startAcpClient } from './acp-client.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-acp-follow-')
const clients: AcpTestClient[] = []
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
})

async function connect(test: Awaited<ReturnType<typeof start>>) {
  const client = await startAcpClient(test.harness, () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))
  clients.push(client)
  await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
  return client
}

it('a read and an edit carry locations (absolute path, line) and go pending → in_progress → completed', async () => {
  const dir = tempDir()
  const file = join(dir, 'notes.txt')
  writeFileSync(file, 'first\nsecond\nthird\n')
  const test = await start({
    // `default` asks before an edit: the approved call still goes pending → in_progress → completed.
    permissions: { mode: 'default', canAsk: true, frontEnd: 'interactive' },
    script: [
      { toolCalls: [{ name: 'read', arguments: { file_path: 'notes.txt', offset: 2 } }] },
      {
        toolCalls: [
          { name: 'edit', arguments: { file_path: 'notes.txt', old_string: 'third', new_string: 'THIRD' } },
        ],
      },
      { text: 'done' },
    ],
  })
  const client = await connect(test)
  const { sessionId } = await client.agent.request('session/new', { cwd: dir, mcpServers: [] })
  const response = await client.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'fix the third line' }],
  })
  expect(response.stopReason).toBe('end_turn')
  expect(readFileSync(file, 'utf8')).toBe('first\nsecond\nTHIRD\n')
  const calls = client.updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<SessionUpdate, { sessionUpdate: 'tool_call' | 'tool_call_update' }> =>
        update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update',
    )
  const starts = calls.filter((update) => update.sessionUpdate === 'tool_call')
  expect(starts.map((update) => update.locations)).toEqual([
    [{ path: file, line: 2 }],
    [{ path: file, line: 3 }],
  ])
  const edit = starts[1]!.toolCallId
  expect(calls.filter((update) => update.toolCallId === edit).map((update) => update.status)).toEqual([
    'pending',
    'in_progress',
    'completed',
  ])
  // The edit was asked about (mode default) with the same location; the read was not.
  expect(client.permissionRequests.map((request) => request.toolCall.toolCallId)).toEqual([edit])
  expect(client.permissionRequests[0]!.toolCall.locations).toEqual([{ path: file, line: 3 }])
})

it('session/load replays the image a prompt carried as an image block', async () => {
  const home = tempDir()
  const cwd = tempDir()
  const data = (await pngImage(40, 30)).toString('base64')
  const first = await start({ home, script: [{ text: 'a box' }] })
  const client = await connect(first)
  const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] })
  await client.agent.request('session/prompt', {
    sessionId,
    prompt: [
      { type: 'text', text: 'what is this?' },
      { type: 'image', data, mimeType: 'image/png', uri: 'file:///tmp/shot.png' },
    ],
  })
  await clients.pop()!.close()
  await first.close()

  const second = await start({ home, script: [] })
  const again = await connect(second)
  await again.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
  const replayed = again.updates
    .map((notification) => notification.update)
    .filter((update) => update.sessionUpdate === 'user_message_chunk')
  expect(replayed.map((update) => update.content)).toEqual([
    { type: 'text', text: 'what is this?' },
    { type: 'image', mimeType: 'image/png', data },
  ])
  expect(replayed[1]!._meta).toMatchObject({ dsh: { image: { name: 'shot.png', width: 40, height: 30 } } })
})
