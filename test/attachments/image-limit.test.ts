// The per-request image limit counts the conversation, not the prompt alone: a prompt whose
// images would push the conversation past it is refused before anything is written (no
// event, no stored image, no request), and the session goes on as it was. A session an
// older dsh stored past the limit says how out, and a compaction (which names the oldest
// images in text) brings it back. Real harness, strict stand-in, JSONL persistence.

import { describe, expect, it } from 'vitest'
import {
  AttachmentErrorCode,
  MAX_IMAGES_PER_REQUEST,
  type PreparedImage,
  prepareImageData,
  storeImages,
} from '../../src/attachments/index.js'
import { clearImageEncodings } from '../../src/llm/image-encoding.js'
import type { ReceivedRequest, ScriptStep } from '../../src/llm/index.js'
import { isSummaryRequest, SUMMARY_REQUEST_MARK } from '../support/compaction-script.js'
import { useTestHarnesses } from '../support/harness.js'
import { pngImage } from '../support/images.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-image-limit-')

/** How many image_url parts the server received in `request`. */
function imageCount(request: ReceivedRequest): number {
  return JSON.stringify(request.messages).split('"type":"image_url"').length - 1
}

/** Answers dsh's summary call with a summary, anything else with `text`. */
const answer =
  (text: string): ScriptStep =>
  (request) =>
    isSummaryRequest(request) ? { text: '1. Task: look at the pictures' } : { text }

/** `count` distinct small PNGs, named i<n>.png from `from` on. */
async function images(count: number, from = 0): Promise<PreparedImage[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const n = from + i
      return prepareImageData(await pngImage(2, 2, `#${n.toString(16).padStart(6, '0')}`), `i${n}.png`)
    }),
  )
}

describe('the per-request image limit', () => {
  it('refuses a prompt whose images would push the conversation past the limit, writing nothing', async () => {
    const turnOne = await images(400)
    const turnTwo = await images(300, 400)
    const { harness, model } = await start({
      script: [{ text: 'seen 400' }, { text: 'no images this time' }],
    })
    const agent = await harness.agents.create({ sessionId: 'limit' })
    expect((await agent.prompt('first', { images: turnOne })).reason).toBe('completed')
    const events = agent.session.length

    await expect(agent.prompt('second', { images: turnTwo })).rejects.toMatchObject({
      code: AttachmentErrorCode.TooMany,
      message: `300 images attached; the conversation carries 400 already, and a request carries at most ${MAX_IMAGES_PER_REQUEST} (compact it first: /compact, or dsh sessions compact limit)`,
    })
    expect(agent.session.length).toBe(events)
    expect(await harness.sessions.getImage(agent.id, turnTwo[0]!.ref.sha256)).toBeUndefined()
    expect(model.requests).toHaveLength(1)

    // The session was left usable: the next turn sends the first prompt's images only.
    expect(await agent.prompt('third')).toMatchObject({ reason: 'completed', text: 'no images this time' })
    expect(imageCount(model.requests[1]!)).toBe(400)
  })

  it('a session stored past the image limit by an older dsh is refused up front, then compacts and goes on', async () => {
    const home = tempDir()
    const turnOne = await images(400)
    const turnTwo = await images(300, 400)
    const first = await start({ home, script: [{ text: 'seen 400' }] })
    const agent = await first.harness.agents.create({ sessionId: 'over-limit', meta: { cwd: home } })
    expect((await agent.prompt('first', { images: turnOne })).reason).toBe('completed')
    // What an older dsh stored: the second prompt and its images, then the turn's failure.
    const session = agent.session
    await storeImages(first.harness.sessions, session.id, turnTwo)
    session.append('turn/start', { turn: 2 })
    session.append('user/message', { text: 'second', images: turnTwo.map((image) => image.ref) })
    session.append('turn/end', {
      turn: 2,
      reason: 'error',
      error: 'the conversation carries 700 images; a request carries at most 600',
    })
    await first.harness.sessions.flush(session)
    await first.close()

    clearImageEncodings()
    const second = await start({ home, script: [answer('unused'), answer('seen the rest')] })
    const resumed = await second.harness.agents.resume({ resumeSessionId: 'over-limit' })
    const stored = resumed.session.length
    // A turn cannot send the conversation: it is refused before anything is logged, saying how out.
    await expect(resumed.prompt('third')).rejects.toMatchObject({
      code: AttachmentErrorCode.TooMany,
      message: expect.stringMatching(/dsh sessions compact over-limit.*--fork over-limit --at-turn/),
    })
    expect(resumed.session.length).toBe(stored)
    expect(second.model.requests).toHaveLength(0)

    // The summary call carries what a request may; the oldest images are named in text.
    expect((await resumed.compact()).summarised).toBe(true)
    const summaryCall = second.model.requests[0]!
    expect(JSON.stringify(summaryCall.messages.at(-1))).toContain(SUMMARY_REQUEST_MARK)
    expect(imageCount(summaryCall)).toBe(MAX_IMAGES_PER_REQUEST)
    expect(JSON.stringify(summaryCall.messages)).toContain('[image i0.png 2×2')
    expect(JSON.stringify(summaryCall.messages)).not.toContain('[image i100.png')
    expect(await resumed.prompt('third')).toMatchObject({ reason: 'completed', text: 'seen the rest' })
    // The summary stands for the images before it: the next request carries none of them.
    expect(imageCount(second.model.requests[1]!)).toBe(0)
  })
})
