// Images through a real harness and the strict stand-in: the same image_url part reaches
// the model on every request, after resume (read back from the store) and in a fork; a
// model without vision is one line before anything is logged; rm removes the images.

import { describe, expect, it } from 'vitest'
import { AttachmentErrorCode, prepareImageFile } from '../../src/attachments/index.js'
import { clearImageEncodings } from '../../src/llm/image-encoding.js'
import type { ReceivedRequest } from '../../src/llm/index.js'
import { copySessions } from '../../src/persistence/copy.js'
import { useTestHarnesses } from '../support/harness.js'
import { pngImage, writeImage } from '../support/images.js'
import { describePostgres, describeSkipReason, useCluster } from '../support/postgres.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const makeDir = useTempDirs('dsh-session-images-')

/** The image parts of a request's user messages, as the JSON text the server received. */
function imageParts(request: ReceivedRequest): string[] {
  const parts: string[] = []
  for (const message of request.messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue
    for (const part of message.content) if (part.type === 'image_url') parts.push(JSON.stringify(part))
  }
  return parts
}

async function shot(dir: string) {
  writeImage(dir, 'shot.png', await pngImage(320, 200))
  return prepareImageFile('shot.png', { cwd: dir })
}

describe.each(['jsonl', 'sqlite', 'memory'] as const)('images on the %s backend', (backend) => {
  it('reach the model as one base64 image_url part, the same bytes on every request, resume and fork', async () => {
    const dir = makeDir()
    const home = makeDir()
    const image = await shot(dir)
    const expected = JSON.stringify({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${image.data.toString('base64')}` },
    })
    const first = await start({ backend, home, script: [{ text: 'a blue box' }, { text: 'still blue' }] })
    const agent = await first.harness.agents.create({ sessionId: 'img-1', meta: { cwd: dir } })
    expect((await agent.prompt('what is in @shot.png?', { images: [image] })).reason).toBe('completed')
    expect((await agent.prompt('and now?')).reason).toBe('completed')
    expect(first.model.requests.map(imageParts)).toEqual([[expected], [expected]])
    // The log names the image by hash; the bytes are not in it.
    const message = agent.session.events.find((event) => event.type === 'user/message')!
    expect(message.data).toEqual({ text: 'what is in @shot.png?', images: [image.ref] })
    expect(JSON.stringify(agent.session.events)).not.toContain(image.data.toString('base64').slice(0, 40))
    // The second request's prefix is the first's: the cache hits past the image.
    const usage = agent.session.events.filter((event) => event.type === 'assistant/message')
    expect((usage[1]!.data as { usage: { cachedTokens: number } }).usage.cachedTokens).toBeGreaterThan(
      image.data.length / 4 / 2,
    )
    if (backend === 'memory') return
    await first.close()

    // Resume in a fresh harness with nothing cached: the image comes from the store.
    clearImageEncodings()
    const second = await start({ backend, home, script: [{ text: 'resumed' }, { text: 'forked' }] })
    const resumed = await second.harness.agents.resume({ resumeSessionId: 'img-1' })
    expect((await resumed.prompt('again?')).reason).toBe('completed')
    clearImageEncodings()
    const fork = await second.harness.agents.fork({ sourceSessionId: 'img-1', sessionId: 'img-fork' })
    expect((await fork.prompt('in the fork?')).reason).toBe('completed')
    expect(second.model.requests.map(imageParts)).toEqual([[expected], [expected]])

    // rm takes the session's images; the fork keeps its own copy.
    const persistence = second.harness.ctx.get('sessionPersistence')!
    await second.harness.agents.dispose('img-1')
    await persistence.remove('img-1')
    expect(await persistence.getImage('img-1', image.ref.sha256)).toBeUndefined()
    expect((await persistence.getImage('img-fork', image.ref.sha256))?.equals(image.data)).toBe(true)
  })

  it('refuses images for a model without vision in one line naming the one with it, logging nothing', async () => {
    const dir = makeDir()
    const image = await shot(dir)
    const { harness, model } = await start({ backend })
    const agent = await harness.agents.create({
      sessionId: 'no-vision',
      meta: { cwd: dir },
      model: { model: 'deepseek-v4-pro' },
    })
    await expect(agent.prompt('look', { images: [image] })).rejects.toMatchObject({
      code: AttachmentErrorCode.NoVision,
      message: 'model deepseek-v4-pro does not take images (one is attached); use --model deepseek-flash',
    })
    expect(agent.session.events).toEqual([])
    expect(model.requests).toEqual([])
  })
})

describe('sessions migrate', () => {
  it('copies a session’s images with its events (JSONL → SQLite)', async () => {
    const dir = makeDir()
    const image = await shot(dir)
    const from = await start({ backend: 'jsonl', script: [{ text: 'seen' }] })
    const agent = await from.harness.agents.create({ sessionId: 'mig-img', meta: { cwd: dir } })
    expect((await agent.prompt('look', { images: [image] })).reason).toBe('completed')
    await from.harness.agents.dispose('mig-img')
    const to = await start({ backend: 'sqlite' })
    const target = to.harness.ctx.get('sessionPersistence')!
    const report = await copySessions(from.harness.ctx.get('sessionPersistence')!, target)
    expect(report.copied).toBe(1)
    expect((await target.getImage('mig-img', image.ref.sha256))?.equals(image.data)).toBe(true)
  })
})

describe('the read tool', () => {
  it('returns an image file to a vision model as the same image_url part, after the tool results', async () => {
    const dir = makeDir()
    const image = await shot(dir)
    const { harness, model } = await start({
      script: [{ toolCalls: [{ name: 'read', arguments: { file_path: 'shot.png' } }] }, { text: 'a box' }],
    })
    const agent = await harness.agents.create({ sessionId: 'read-img', meta: { cwd: dir } })
    expect((await agent.prompt('read shot.png')).reason).toBe('completed')
    const second = model.requests[1]!
    const roles = second.messages.map((message) => message.role)
    expect(roles.slice(-3)).toEqual(['assistant', 'tool', 'user'])
    expect(imageParts(second)).toEqual([
      JSON.stringify({
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${image.data.toString('base64')}` },
      }),
    ])
    const result = agent.session.events.find((event) => event.type === 'tool/result')!
    expect(result.data).toMatchObject({
      content: 'shot.png is a PNG image, 320×200, 1 KB; the image follows.',
      images: [image.ref],
    })
  })
})

describePostgres(`images on the postgres backend${describeSkipReason()}`, () => {
  const cluster = useCluster()
  it('host B resumes host A’s image session with the image from the blob table', async () => {
    const dir = makeDir()
    const image = await shot(dir)
    const persistence = { backend: 'postgres', url: cluster.cluster.url, schema: cluster.schema() }
    const hostA = await start({
      config: { persistence: { ...persistence, hostName: 'host-a' } },
      script: [{ text: 'A saw it' }],
    })
    const agent = await hostA.harness.agents.create({ sessionId: 'pg-img', meta: { cwd: dir } })
    expect((await agent.prompt('look', { images: [image] })).reason).toBe('completed')
    await hostA.close()
    clearImageEncodings()
    const hostB = await start({
      config: { persistence: { ...persistence, hostName: 'host-b' } },
      script: [{ text: 'B saw it' }],
    })
    const resumed = await hostB.harness.agents.resume({ resumeSessionId: 'pg-img' })
    expect((await resumed.prompt('still there?')).reason).toBe('completed')
    expect(imageParts(hostB.model.requests[0]!)).toEqual(imageParts(hostA.model.requests[0]!))
    expect(imageParts(hostB.model.requests[0]!)).toHaveLength(1)
    await hostB.harness.agents.dispose('pg-img')
    await hostB.harness.ctx.get('sessionPersistence')!.remove('pg-img')
    expect(
      await hostB.harness.ctx.get('sessionPersistence')!.getImage('pg-img', image.ref.sha256),
    ).toBeUndefined()
  })
})
