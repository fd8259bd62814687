// In Chromium: a terminal the model drives shows on its session page, read-only; watching
// it shows its screen, which follows the program's output live.

import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-terminals-')

describe('terminals in dsh web', () => {
  it("lists the model's terminal and its watched screen follows the output live", async () => {
    const folder = tempDir()
    const ticks = 'for i in 1 2 3 4 5 6 7 8 9 10; do echo tick-$i; sleep 0.5; done; exec cat'
    const { server } = await start({
      config: { permissions: { mode: 'bypassPermissions' } },
      script: [
        { toolCalls: [{ name: 'terminal_start', arguments: { command: ticks } }] },
        {
          toolCalls: [
            { name: 'terminal_read', arguments: { id: 't1', wait_for: 'tick-10', timeout_ms: 120000 } },
          ],
        },
        { text: 'counted' },
      ],
    })
    const { page, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    await page.fill('textarea.prompt', 'count')
    await page.press('textarea.prompt', 'Enter')

    const terminal = page.locator('.terminal[data-terminal="t1"]')
    await terminal.waitFor()
    expect(await terminal.locator('.terminal-command').textContent()).toBe(ticks)
    await terminal.locator('summary').click()
    const screen = terminal.locator('.terminal-screen')
    await expect.poll(() => screen.textContent(), { timeout: 60_000 }).toContain('tick-2')
    const early = (await screen.textContent()) ?? ''
    expect(early).not.toContain('tick-10')
    // The same open view, later: the program's later lines arrived without a reload.
    await expect.poll(() => screen.textContent(), { timeout: 60_000 }).toContain('tick-10')
    await page.locator('.msg.assistant', { hasText: 'counted' }).waitFor()
    expect(
      await page.locator('.terminal-screen[contenteditable], .terminal input, .terminal textarea').count(),
    ).toBe(0)
    expect(errors).toEqual([])
  })
})
