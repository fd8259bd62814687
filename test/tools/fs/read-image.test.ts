// The read tool on image files through a real turn: the line the model reads describes the
// file on disk (its type, dimensions and size), and says how it was sent when dsh had to
// downscale or convert it; a model without images gets the file described, nothing sent.

import { statSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { formatBytes } from '../../../src/attachments/index.js'
import type { SessionEventMap } from '../../../src/session/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { pngImage, writeImage } from '../../support/images.js'
import { useTempDirs } from '../../support/temp-dir.js'

const start = useTestHarnesses()
const makeDir = useTempDirs('dsh-read-image-')

/** A three-frame animated GIF, 3000×300 a frame: over the side limit, so it is sent as a PNG. */
async function animatedGif(): Promise<Buffer> {
  const frames = await sharp({ create: { width: 3000, height: 900, channels: 3, background: '#f0f' } })
    .raw()
    .toBuffer()
  return sharp(frames, { raw: { width: 3000, height: 900, channels: 3, pageHeight: 300 } })
    .gif({ loop: 0 })
    .toBuffer()
}

async function readResults(model: string) {
  const dir = makeDir()
  writeImage(dir, 'big.png', await pngImage(4000, 3000, '#00ff00'))
  writeImage(dir, 'anim.gif', await animatedGif())
  writeImage(dir, 'shot.png', await pngImage(320, 200))
  const { harness, model: server } = await start({
    script: [
      {
        toolCalls: [
          { id: 'call_big', name: 'read', arguments: { file_path: 'big.png' } },
          { id: 'call_gif', name: 'read', arguments: { file_path: 'anim.gif' } },
          { id: 'call_shot', name: 'read', arguments: { file_path: 'shot.png' } },
        ],
      },
      { text: 'seen' },
    ],
  })
  const agent = await harness.agents.create({
    sessionId: `read-${model}`,
    meta: { cwd: dir },
    model: { model },
  })
  expect((await agent.prompt('look at the pictures')).reason).toBe('completed')
  const results = agent.session.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as SessionEventMap['tool/result'])
  const size = (name: string) => formatBytes(statSync(join(dir, name)).size)
  return { results, size, requests: server.requests }
}

describe('read on an image file', () => {
  it('describes the file itself to a vision model, and says when it was sent downscaled or converted', async () => {
    const { results, size } = await readResults('deepseek-flash')
    expect(results.map((result) => result.content)).toEqual([
      `big.png is a PNG image, 4000×3000, ${size('big.png')} (sent downscaled to 2048×1536); the image follows.`,
      `anim.gif is a GIF image, 3000×300, ${size('anim.gif')} (sent as PNG, downscaled to 2048×205); the image follows.`,
      `shot.png is a PNG image, 320×200, ${size('shot.png')}; the image follows.`,
    ])
    expect(results.map((result) => result.images?.[0]?.mediaType)).toEqual([
      'image/png',
      'image/png',
      'image/png',
    ])
  })

  it('describes the file itself to a model without images, and sends none', async () => {
    const { results, size, requests } = await readResults('deepseek-v4-pro')
    const unseen = 'the model in use does not take images, so it is not shown.'
    expect(results.map((result) => result.content)).toEqual([
      `big.png is a PNG image, 4000×3000, ${size('big.png')}; ${unseen}`,
      `anim.gif is a GIF image, 3000×300, ${size('anim.gif')}; ${unseen}`,
      `shot.png is a PNG image, 320×200, ${size('shot.png')}; ${unseen}`,
    ])
    expect(results.every((result) => result.images === undefined)).toBe(true)
    expect(JSON.stringify(requests)).not.toContain('image_url')
  })
})
