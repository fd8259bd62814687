// An answer in the web UI is markdown while it streams (re-rendered, throttled), not plain
// text until it is complete.

import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-streaming-')

describe('streaming markdown in the web UI', () => {
  it('renders bold text and a list while the answer is still streaming', async () => {
    const folder = tempDir()
    const { server } = await start({
      script: [{ text: `**Plan** first:\n\n- one\n- two\n\n${'more words '.repeat(60)}`, delayMs: 25 }],
    })
    const { page, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    await page.fill('textarea.prompt', 'plan it')
    await page.press('textarea.prompt', 'Enter')
    const streaming = page.locator('.msg.assistant.streaming')
    await streaming.locator('.live-markdown strong', { hasText: 'Plan' }).waitFor()
    await expect.poll(() => streaming.locator('.live-markdown li').allTextContents()).toEqual(['one', 'two'])
    // Still streaming at that moment: the answer is far from complete.
    expect(await streaming.count()).toBe(1)
    await page.locator('.msg.assistant:not(.streaming) .markdown strong', { hasText: 'Plan' }).waitFor()
    expect(errors).toEqual([])
  })
})
