// Compaction in the web UI, in Chromium, against the strict stand-in with a small context
// window: the boundary line of an automatic compaction arrives live, the context bar shows
// the window's fill, Compact with instructions reaches the summary request with those words
// and its boundary appears without a reload, a refusal stays as a notice until the next
// action, and a reload shows the same boundaries from the stored log.

import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatCompactionLine, formatContextUsage } from '../../../src/context/index.js'
import type { ScriptRequest, ScriptStep } from '../../../src/llm/index.js'
import type { ContextCompactedData } from '../../../src/session/index.js'
import { isSummaryRequest, workScript } from '../../support/compaction-script.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-compaction-')

const WINDOW = 16_000
const INSTRUCTIONS = 'focus on the tests'
/** Waits on the server and the page: generous, for a busy machine. */
const POLL = { timeout: 20_000 }
const SCREENSHOTS = process.env.DSH_WEB_SCREENSHOTS

function asksWith(request: ScriptRequest, words: string): boolean {
  return isSummaryRequest(request) && (request.messages.at(-1)?.content ?? '').includes(words)
}

describe('dsh web compaction in Chromium', () => {
  it('marks boundaries live and stored, shows the window fill, and compacts with instructions', async () => {
    const folder = tempDir()
    const work = workScript({ calls: 10, lines: 200 })
    // The manual summary request waits for the test, so the page's progress can be seen.
    const asked: ScriptRequest[] = []
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    // So does the fourth step of the first turn, so the fill can be read in the middle of a turn.
    let steps = 0
    let continueTurn: () => void = () => {}
    const midTurn = new Promise<void>((resolve) => {
      continueTurn = resolve
    })
    const script: ScriptStep[] = work.script.map((step) => async (request: ScriptRequest) => {
      if (!isSummaryRequest(request) && ++steps === 4) await midTurn
      if (asksWith(request, INSTRUCTIONS)) {
        asked.push(request)
        await held
      }
      return typeof step === 'function' ? step(request) : step
    })
    const { server, test } = await start({
      script,
      config: { model: { contextWindow: WINDOW, maxRetries: 0 } },
      strict: { contextWindow: WINDOW },
    })
    const id = await server.host.create(folder, {})
    const agent = test.harness.agents.get(id)!
    const boundaries = () =>
      agent.session.events
        .filter((event) => event.type === 'context/compacted')
        .map((event) => event.data as ContextCompactedData)
    const fill = () => {
      const usage = agent.contextUsage()!
      return formatContextUsage({ tokens: usage.tokens, window: usage.window ?? null })
    }

    const { page, dialogs, errors } = await openPage(browser(), server.url)
    // Tall enough that the windowed transcript renders every item of this session.
    await page.setViewportSize({ width: 1280, height: 16_000 })
    await page.goto(`${server.origin}/#/session/${encodeURIComponent(id)}`)
    await page.locator('.session-page .mode.hosted').waitFor()

    // Nothing to compact yet: the refusal stays as a notice until the next action.
    await page.click('button.compact')
    const notice = page.locator('.notice-bar')
    await notice.filter({ hasText: 'there is nothing to compact yet' }).waitFor()
    await page.locator('button.compact:not([disabled])', { hasText: 'Compact' }).waitFor()
    expect(await notice.textContent()).toBe('there is nothing to compact yet')

    // A turn whose bash outputs overflow the window: compacted automatically, shown live.
    await page.fill('textarea.prompt', 'work one')
    await page.press('textarea.prompt', 'Enter')
    await expect.poll(() => notice.count(), POLL).toBe(0)
    // Three steps in, the fill the page shows is the agent's, sent after the last step.
    await expect.poll(() => steps, POLL).toBe(4)
    const meter = page.locator('.context-meter')
    await expect.poll(() => meter.textContent(), POLL).toBe(fill())
    expect(await page.locator('button.compact').isDisabled()).toBe(true)
    continueTurn()
    await page.locator('.turn-end', { hasText: 'turn 1 · completed' }).waitFor({ timeout: 60_000 })
    const automatic = boundaries()
    expect(automatic.length).toBeGreaterThan(0)
    expect(automatic.every((data) => data.trigger === 'auto')).toBe(true)
    const autoLines = page.locator('.compaction.trigger-auto .compaction-text')
    await expect.poll(() => autoLines.allTextContents(), POLL).toEqual(automatic.map(formatCompactionLine))
    expect(automatic.map(formatCompactionLine)[0]).toMatch(/^context compacted: [\d.]+k → [\d.]+k tokens$/)

    // The window's fill after the turn, as the agent measures it, with a percentage.
    await expect.poll(() => meter.textContent(), POLL).toBe(fill())
    expect(await meter.textContent()).toMatch(/^context \d+% \([\d.]+k of 16k tokens\)$/)
    const percentBefore = Number(await meter.getAttribute('data-percent'))
    if (SCREENSHOTS)
      await page.screenshot({
        path: join(SCREENSHOTS, 'web-compaction-bar.png'),
        clip: { x: 0, y: 0, width: 1280, height: 700 },
      })

    // Compact with instructions: progress while the summary call runs, then the boundary, live.
    await page.evaluate(() => {
      ;(window as unknown as { sameDocument: boolean }).sameDocument = true
    })
    await page.fill('.compact-instructions', INSTRUCTIONS)
    await page.click('button.compact')
    await expect.poll(() => asked.length, POLL).toBe(1)
    await page.locator('button.compact[disabled]', { hasText: 'Compacting…' }).waitFor()
    await page.locator('.working.compacting', { hasText: 'manual' }).waitFor()
    expect(await page.locator('button.send, button.stop').first().textContent()).toBe('Stop')
    release()

    const manual = page.locator('.compaction.trigger-manual')
    await manual.waitFor()
    expect(work.summaryRequests.filter((request) => asksWith(request, INSTRUCTIONS))).toHaveLength(1)
    const written = boundaries().at(-1)!
    expect(written).toMatchObject({ trigger: 'manual', instructions: INSTRUCTIONS })
    expect(await manual.locator('.compaction-text').textContent()).toBe(formatCompactionLine(written))
    expect(await manual.locator('.compaction-instructions').textContent()).toBe(
      `instructions: ${INSTRUCTIONS}`,
    )
    await page.locator('button.compact:not([disabled])', { hasText: 'Compact' }).waitFor()
    expect(await page.inputValue('.compact-instructions')).toBe('')
    await expect.poll(() => page.locator('.working.compacting').count(), POLL).toBe(0)
    // No reload happened: the same document is still there.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    )
    // The fill went down, and reads as the agent measures it now.
    await expect.poll(() => meter.textContent(), POLL).toBe(fill())
    expect(Number(await meter.getAttribute('data-percent'))).toBeLessThan(percentBefore)
    expect(await notice.count()).toBe(0)

    // The summary is collapsed under the line; opened, it shows the model's text.
    const summary = manual.locator('.compaction-summary')
    expect(await summary.locator('.markdown').isVisible()).toBe(false)
    await summary.locator('summary').click()
    await summary.locator('.markdown', { hasText: 'Task:' }).waitFor()
    if (SCREENSHOTS) await manual.screenshot({ path: join(SCREENSHOTS, 'web-compaction-boundary.png') })

    // A reload reads the stored log: the same boundaries, in the same places.
    const before = await page.locator('.compaction .compaction-text').allTextContents()
    expect(before).toEqual(boundaries().map(formatCompactionLine))
    await page.reload()
    await page.locator('.compaction.trigger-manual').waitFor()
    expect(await page.locator('.compaction .compaction-text').allTextContents()).toEqual(before)
    await expect.poll(() => meter.textContent(), POLL).toBe(fill())

    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  }, 120_000)
})
