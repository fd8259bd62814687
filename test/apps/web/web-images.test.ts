// Images in the web UI, in Chromium against the strict stand-in: attached with the file
// button, a paste and a drop, shown as removable thumbnails (drawn on canvases), sent with
// the prompt as image_url parts, and shown in the transcript from the session's store (blob:
// URLs fetched with the bearer header), after a reload too. A non-image is one visible line.

import { describe, expect, it } from 'vitest'
import type { ReceivedRequest } from '../../../src/llm/index.js'
import { pngImage } from '../../support/images.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-images-')

function imageUrls(request: ReceivedRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'user' && typeof message.content !== 'string'
      ? message.content.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []))
      : [],
  )
}

const dataUrl = (data: Buffer) => `data:image/png;base64,${data.toString('base64')}`

/** Dispatches a paste (on the prompt) or a drop (on the composer) carrying one file, as a browser does. */
async function transfer(
  page: import('playwright-core').Page,
  kind: 'paste' | 'drop',
  file: { name: string; type: string; base64: string },
): Promise<void> {
  await page.evaluate(
    ({ kind, file }) => {
      const bytes = Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0))
      const data = new DataTransfer()
      data.items.add(new File([bytes], file.name, { type: file.type }))
      const event =
        kind === 'paste'
          ? new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })
          : new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true })
      document.querySelector(kind === 'paste' ? 'textarea.prompt' : '.chat-box')!.dispatchEvent(event)
    },
    { kind, file },
  )
}

describe('images in dsh web', () => {
  it('file button, paste and drop attach thumbnails; the request carries them; the transcript shows them after a reload', async () => {
    const folder = tempDir()
    const { server, test } = await start({ script: [{ text: 'Two boxes.' }] })
    const fromButton = await pngImage(320, 200, '#225588')
    const fromPaste = await pngImage(160, 120, '#884422')
    const dropped = await pngImage(40, 40, '#228844')

    const { page, dialogs, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()

    // The file button's input, a paste, and a drop (removed again): three thumbnails, then two.
    await page.setInputFiles('input.attach-input', {
      name: 'button.png',
      mimeType: 'image/png',
      buffer: fromButton,
    })
    await page.locator('.attachments canvas.thumb[data-drawn="true"]').first().waitFor()
    await transfer(page, 'paste', {
      name: 'pasted.png',
      type: 'image/png',
      base64: fromPaste.toString('base64'),
    })
    await transfer(page, 'drop', {
      name: 'dropped.png',
      type: 'image/png',
      base64: dropped.toString('base64'),
    })
    await expect.poll(() => page.locator('.attachments canvas.thumb[data-drawn="true"]').count()).toBe(3)
    await page.click('button.remove-attachment[aria-label="Remove dropped.png"]')
    await expect.poll(() => page.locator('.attachments .attachment').count()).toBe(2)

    // Something that is not an image: one visible line, nothing attached.
    await transfer(page, 'drop', { name: 'notes.txt', type: 'text/plain', base64: btoa('hello') })
    await page
      .locator('.notice-bar', {
        hasText: 'image notes.txt: not an image dsh can send (PNG, JPEG, GIF or WebP expected)',
      })
      .waitFor()
    expect(await page.locator('.attachments .attachment').count()).toBe(2)

    await page.fill('textarea.prompt', 'what are these?')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.markdown', { hasText: 'Two boxes.' }).waitFor()
    expect(await page.locator('.attachments').count()).toBe(0)
    expect(test.model.requests.map(imageUrls)).toEqual([[dataUrl(fromButton), dataUrl(fromPaste)]])

    // The transcript's thumbnails come from the session's store, before and after a reload.
    const loaded = () =>
      page
        .locator('.msg.user img.thumb')
        .evaluateAll((images) => images.map((image) => (image as HTMLImageElement).naturalWidth))
    await expect.poll(loaded).toEqual([320, 160])
    await page.reload()
    await page.locator('.markdown', { hasText: 'Two boxes.' }).waitFor()
    await expect.poll(loaded).toEqual([320, 160])
    // The thumbnails are blob: URLs fetched with the bearer header: no URL on the page
    // carries the token (a link opened in a new tab would put it in that tab's history).
    const hrefs = await page
      .locator('.msg.user a.prompt-image')
      .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href))
    expect(hrefs).toHaveLength(2)
    for (const href of hrefs) expect(href).toMatch(new RegExp(`^blob:${server.origin}/`))
    const pageHtml = await page.content()
    expect(pageHtml).not.toContain(server.secrets.token)
    // Opened in a new tab (as a click on the thumbnail does), the image shows, and no URL of that tab holds the token.
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.locator('.msg.user a.prompt-image').first().click(),
    ])
    await tab.waitForLoadState()
    expect(tab.url()).toMatch(/^blob:/)
    expect(tab.url()).not.toContain(server.secrets.token)
    expect(
      await tab.evaluate(() => (document.querySelector('img') as HTMLImageElement | null)?.naturalWidth),
    ).toBe(320)
    await tab.close()

    // The image is served to the bearer header only (not ?token=), and only from its own session.
    const path = await page.evaluate(async () => {
      const entries = performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname)
      return entries.find((entry) => /\/images\/[0-9a-f]{64}$/.test(entry))
    })
    expect(path).toMatch(/^\/api\/sessions\/web-session-[^/]+\/images\/[0-9a-f]{64}$/)
    const bare = await fetch(new URL(path!, server.origin))
    expect(bare.status).toBe(401)
    const viaQuery = await fetch(
      new URL(`${path}?token=${encodeURIComponent(server.secrets.token)}`, server.origin),
    )
    expect(viaQuery.status).toBe(401)
    const headers = { authorization: `Bearer ${server.secrets.token}` }
    const withHeader = await fetch(new URL(path!, server.origin), { headers })
    expect({ status: withHeader.status, type: withHeader.headers.get('content-type') }).toEqual({
      status: 200,
      type: 'image/png',
    })
    const elsewhere = await fetch(
      new URL(path!.replace(/\/sessions\/[^/]+\//, '/sessions/other-session/'), server.origin),
      { headers },
    )
    expect(elsewhere.status).toBe(404)
    // Only a hash names an image (the name becomes a file name in the JSONL store).
    const notHash = await fetch(new URL(path!.replace(/[0-9a-f]{64}$/, 'not-a-hash'), server.origin), {
      headers,
    })
    expect(notHash.status).toBe(404)

    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('an image the server refuses, too many, or a model without images is one line; nothing is sent', async () => {
    const folder = tempDir()
    const { server, test } = await start({ script: [] })
    const { page, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()

    // Named and typed as a PNG, but not one: the server reads the bytes.
    await page.setInputFiles('input.attach-input', {
      name: 'fake.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not a png at all'),
    })
    await page.locator('.attachments .attachment').waitFor()
    await page.fill('textarea.prompt', 'look')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.notice-bar', { hasText: 'image fake.png: not an image dsh can send' }).waitFor()
    // Given back for another try.
    expect(await page.inputValue('textarea.prompt')).toBe('look')
    await page.click('button.remove-attachment')

    // More than a request may carry: one line naming the limit, none attached.
    const tiny = await pngImage(2, 2)
    await page.setInputFiles(
      'input.attach-input',
      Array.from({ length: 601 }, (_, index) => ({
        name: `${index}.png`,
        mimeType: 'image/png',
        buffer: tiny,
      })),
    )
    await page
      .locator('.notice-bar', { hasText: '601 images attached; a request carries at most 600' })
      .waitFor()
    expect(await page.locator('.attachments .attachment').count()).toBe(0)

    await page.selectOption('select.model-picker', 'deepseek-v4-pro')
    await expect.poll(() => page.locator('select.model-picker').inputValue()).toBe('deepseek-v4-pro')
    await page.setInputFiles('input.attach-input', {
      name: 'real.png',
      mimeType: 'image/png',
      buffer: await pngImage(20, 20),
    })
    await page.press('textarea.prompt', 'Enter')
    await page
      .locator('.notice-bar', {
        hasText: 'model deepseek-v4-pro does not take images (one is attached); use --model deepseek-flash',
      })
      .waitFor()
    expect(test.model.requests).toHaveLength(0)
    expect(errors).toEqual([])
    await page.context().close()
  })
})
