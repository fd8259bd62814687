// Compaction of sessions with images, against the strict stand-in and JSONL persistence: a
// resumed session's images are loaded from its store for the summary call (manual, and
// automatic inside a turn). Past the per-request limit: test/attachments/image-limit.test.ts.

import { describe, expect, it } from 'vitest'
import { type PreparedImage, prepareImageData } from '../../src/attachments/index.js'
import { clearImageEncodings } from '../../src/llm/image-encoding.js'
import type { ReceivedRequest, ScriptStep } from '../../src/llm/index.js'
import type { ContextCompactedData } from '../../src/session/index.js'
import { isSummaryRequest, SUMMARY_REQUEST_MARK } from '../support/compaction-script.js'
import { useTestHarnesses } from '../support/harness.js'
import { pngImage } from '../support/images.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-context-images-')

/** How many image_url parts the server received in `request`. */
function imageCount(request: ReceivedRequest): number {
  return JSON.stringify(request.messages).split('"type":"image_url"').length - 1
}

async function shot(): Promise<PreparedImage> {
  return prepareImageData(await pngImage(2, 2, '#000000'), 'i0.png')
}

/** Whether the server received dsh's summary call. */
function isSummaryCall(request: ReceivedRequest): boolean {
  return JSON.stringify(request.messages.at(-1)).includes(SUMMARY_REQUEST_MARK)
}

/** Answers dsh's summary call with a summary, anything else with `text`. */
const answer =
  (text: string): ScriptStep =>
  (request) =>
    isSummaryRequest(request) ? { text: '1. Task: look at the pictures' } : { text }

const summaries = (events: readonly { type: string; data: unknown }[]) =>
  events
    .filter((event) => event.type === 'context/compacted')
    .map((event) => event.data as ContextCompactedData)

describe('compaction of a session with images', () => {
  it('a manual compaction after a resume loads the image from the store for the summary call', async () => {
    const home = tempDir()
    const first = await start({ home, script: [{ text: 'a dark square' }] })
    const agent = await first.harness.agents.create({ sessionId: 'compact-img', meta: { cwd: home } })
    expect((await agent.prompt('what is in @i0.png?', { images: [await shot()] })).reason).toBe('completed')
    await first.close()

    // A new process: nothing is encoded, the image is only in the session's store.
    clearImageEncodings()
    const second = await start({ home, script: [answer('unused'), answer('still a dark square')] })
    const resumed = await second.harness.agents.resume({ resumeSessionId: 'compact-img' })
    const result = await resumed.compact()
    expect(result.summarised).toBe(true)
    // The summary call saw the image, as the next request would have.
    expect(isSummaryCall(second.model.requests[0]!)).toBe(true)
    expect(imageCount(second.model.requests[0]!)).toBe(1)
    expect((await resumed.prompt('and now?')).reason).toBe('completed')
  })

  it('an automatic compaction inside a turn of a resumed session loads the image too', async () => {
    const home = tempDir()
    const config = { model: { contextWindow: 100_000, maxRetries: 0 }, compaction: { threshold: 0.3 } }
    const strict = { contextWindow: 100_000 }
    const first = await start({ home, config, strict, script: [{ text: 'x'.repeat(120_000) }] })
    const agent = await first.harness.agents.create({ sessionId: 'auto-img', meta: { cwd: home } })
    expect((await agent.prompt('describe @i0.png at length', { images: [await shot()] })).reason).toBe(
      'completed',
    )
    await first.close()

    clearImageEncodings()
    const second = await start({ home, config, strict, script: [answer('unused'), answer('done')] })
    const resumed = await second.harness.agents.resume({ resumeSessionId: 'auto-img' })
    expect(await resumed.prompt('go on')).toMatchObject({ reason: 'completed', text: 'done' })
    expect(summaries(resumed.session.events)).toEqual([expect.objectContaining({ trigger: 'auto' })])
    expect(isSummaryCall(second.model.requests[0]!)).toBe(true)
    expect(imageCount(second.model.requests[0]!)).toBe(1)
  })
})
