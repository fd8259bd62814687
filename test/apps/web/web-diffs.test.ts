// Edits in the web UI, in Chromium: the approval card of an edit shows the lines it takes
// out and puts in; while it waits the call has one card (not a "no result" and a "running"
// one); once it ran, its diff shows as rows with +/- gutters, one line each.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-diffs-')

describe('edit diffs in the web UI', () => {
  it('shows the proposed change in the approval, one card while it waits, and the diff as rows', async () => {
    const folder = tempDir()
    const file = join(folder, 'notes.txt')
    writeFileSync(file, 'first line\nold middle\nlast line\n')
    const { server } = await start({
      config: { permissions: { ask: ['Edit(notes.txt)'] } },
      script: [
        // The edit tool wants the file read first.
        { toolCalls: [{ name: 'read', arguments: { file_path: file } }] },
        {
          toolCalls: [
            {
              name: 'edit',
              arguments: { file_path: file, old_string: 'old middle', new_string: 'new middle\nadded line' },
            },
          ],
        },
        { text: 'edited' },
      ],
    })
    const { page, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    await page.fill('textarea.prompt', 'change the middle')
    await page.press('textarea.prompt', 'Enter')

    const approval = page.locator('.approval')
    await approval.waitFor()
    const proposed = approval.locator('.diff .d-line')
    expect(await proposed.allTextContents()).toEqual([
      `+++ ${file}`,
      '-old middle',
      '+new middle',
      '+added line',
    ])
    expect(await approval.locator('.d-del .d-sign').allTextContents()).toEqual(['-'])
    // One card for the waiting call, and it says it is running.
    const cards = page.locator('.tool[data-tool="edit"]')
    expect(await cards.count()).toBe(1)
    expect(await cards.locator('.badge').textContent()).toBe('running')

    await approval.locator('button.approve').click()
    await page.locator('.msg.assistant', { hasText: 'edited' }).waitFor()
    expect(readFileSync(file, 'utf8')).toBe('first line\nnew middle\nadded line\nlast line\n')
    expect(await cards.count()).toBe(1)
    const rows = cards.locator('.diff .d-line')
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(5)
    const added = cards.locator('.diff .d-add .d-text')
    expect(await added.allTextContents()).toEqual(['new middle', 'added line'])
    expect(await cards.locator('.diff .d-del .d-text').allTextContents()).toEqual(['old middle'])
    // Each line is its own row: the two added lines sit one under the other.
    const [a, b] = [await added.nth(0).boundingBox(), await added.nth(1).boundingBox()]
    expect(b!.y).toBeGreaterThan(a!.y + a!.height / 2)
    expect(errors).toEqual([])
  })
})
