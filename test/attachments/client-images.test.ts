// Images from protocol clients reach the model as the same image_url part a file does:
// a stdio prompt's image part and an ACP `image` block (advertised with
// promptCapabilities.image). A bad image fails the request and logs nothing.

import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import type { ReceivedRequest } from '../../src/llm/index.js'
import { type AcpTestClient, startAcpClient } from '../apps/acp/acp-client.js'
import { startStdioClient } from '../apps/stdio/stdio-client.js'
import { useTestHarnesses } from '../support/harness.js'
import { pngImage } from '../support/images.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const makeDir = useTempDirs('dsh-client-images-')
const clients: AcpTestClient[] = []
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close()
})

function imageUrls(request: ReceivedRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'user' && typeof message.content !== 'string'
      ? message.content.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []))
      : [],
  )
}

describe('client images', () => {
  it('a stdio image part reaches the model as a base64 image_url part; a bad one fails the request', async () => {
    const cwd = makeDir()
    const data = await pngImage(40, 30)
    const { harness, model } = await start({ script: [{ text: 'a box' }] })
    const client = startStdioClient(harness)
    await client.request('initialize', { sessionId: 'stdio-img', cwd })
    const bad = await client.request('session/prompt', {
      text: 'look',
      images: [{ data: Buffer.from('hello').toString('base64'), name: 'x.png' }],
    })
    expect(bad.error?.message).toBe(
      'image x.png: not an image dsh can send (PNG, JPEG, GIF or WebP expected)',
    )
    const answer = await client.request('session/prompt', {
      text: 'look',
      images: [{ data: data.toString('base64'), name: 'shot.png' }],
    })
    expect(answer.error).toBeUndefined()
    expect(model.requests.map(imageUrls)).toEqual([[`data:image/png;base64,${data.toString('base64')}`]])
    const events = harness.agents.get('stdio-img')!.session.events
    expect(events.filter((event) => event.type === 'turn/start')).toHaveLength(1)
    client.end()
    await client.done
  })

  it('an ACP image block reaches the model as the same part, and image is advertised', async () => {
    const cwd = makeDir()
    const data = await pngImage(40, 30)
    const test = await start({ script: [{ text: 'a box' }] })
    const client = await startAcpClient(test.harness)
    clients.push(client)
    const init = await client.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION })
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true)
    const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] })
    const result = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', data: data.toString('base64'), mimeType: 'image/png', uri: 'file:///tmp/shot.png' },
      ],
    })
    expect(result.stopReason).toBe('end_turn')
    expect(test.model.requests.map(imageUrls)).toEqual([[`data:image/png;base64,${data.toString('base64')}`]])
    const message = test.harness.agents.get(sessionId)!.session.events.find((e) => e.type === 'user/message')!
    expect(message.data).toMatchObject({ text: 'what is this?', images: [{ name: 'shot.png', width: 40 }] })
  })
})
