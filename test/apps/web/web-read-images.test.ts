// An image the `read` tool returned to a vision model shows in the web transcript as a
// thumbnail on the tool's card, served from the session's image store.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pngImage } from '../../support/images.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-read-images-')

describe('read tool images in dsh web', () => {
  it("shows the image a read returned as a thumbnail on the read's card", async () => {
    const folder = tempDir()
    const shot = join(folder, 'shot.png')
    writeFileSync(shot, await pngImage(200, 100, '#336699'))
    const { server } = await start({
      script: [{ toolCalls: [{ name: 'read', arguments: { file_path: shot } }] }, { text: 'A blue box.' }],
    })
    const { page, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    await page.fill('textarea.prompt', 'what is in shot.png?')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.msg.assistant', { hasText: 'A blue box.' }).waitFor()
    const thumb = page.locator('.tool[data-tool="read"] .prompt-images img.thumb')
    await thumb.waitFor()
    // Fetched with the bearer header and shown from a blob: URL: the token is in no URL.
    expect(await thumb.getAttribute('src')).toMatch(/^blob:/)
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(200)
    expect(errors).toEqual([])
  })
})
