// The web UI end to end in a real browser (Debian's Chromium through playwright-core):
// sessions list, a new session in a temporary folder, streamed answers, bash tool cards,
// an `ask` approved in the page, a stopped turn, and a reload that shows the same log.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ScriptRequest } from '../../../src/llm/index.js'
import { deriveUsage, formatCost, resolvePriceTable, turnUsage } from '../../../src/usage/index.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-')
const SCREENSHOTS = process.env.DSH_WEB_SCREENSHOTS

/** The last tool result the model was sent (what a scripted step reacts to). */
function lastToolResult(request: ScriptRequest): string {
  const tool = [...request.messages].reverse().find((message) => message.role === 'tool')
  return tool && typeof tool.content === 'string' ? tool.content : ''
}

describe('dsh web in Chromium', () => {
  it('lists sessions, chats live with streaming, tool cards, an approved ask, stop, and reload', async () => {
    const folder = tempDir()
    const { server, test } = await start({
      config: { permissions: { ask: ['Bash(touch *)'] } },
      script: [
        // An earlier session, so the list has a row before the browser opens.
        { text: 'an earlier answer' },
        // Turn 1: streamed text, then a bash call, then the final answer.
        {
          text: 'Let me look at **the folder**.',
          delayMs: 40,
          toolCalls: [{ name: 'bash', arguments: { command: 'echo hello-from-bash' } }],
        },
        (request) => ({ text: `The command said: ${lastToolResult(request).split('\n')[0]}` }),
        // Turn 2: a command the ask rule stops for approval.
        { toolCalls: [{ name: 'bash', arguments: { command: 'touch approved.txt' } }] },
        { text: 'touched it' },
        // Turn 3: a long, slow answer the user stops.
        { text: 'word '.repeat(400), delayMs: 30 },
      ],
    })
    const earlier = await test.harness.agents.create({
      sessionId: 'earlier-session',
      meta: { cwd: test.home },
    })
    await earlier.prompt('the first question')
    await test.harness.agents.dispose(earlier.id)

    const { page, dialogs, errors } = await openPage(browser(), server.url)
    // The token left the address bar; the sessions list shows the stored session.
    expect(page.url()).not.toContain(server.secrets.token)
    await page.locator('tr.session-row', { hasText: 'the first question' }).waitFor()
    expect(await page.locator('thead th').allTextContents()).toEqual([
      'Title',
      'Folder',
      'Status',
      'Turns',
      'Tokens',
      'Cost',
      'Updated',
      '',
    ])
    // The row's cost is the one derivation's, in the one format.
    const stored = await test.harness.ctx.get('sessionPersistence')!.load('earlier-session')
    const earlierCost = deriveUsage(stored.events, resolvePriceTable(test.harness.config.pricing)).session
      .cost
    expect(await page.locator('tr.session-row[data-id="earlier-session"] td.num').nth(2).textContent()).toBe(
      formatCost(earlierCost, 'USD'),
    )
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'web-sessions.png') })

    // A new session in the temporary folder.
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    expect(page.url()).toContain('#/session/web-session-')
    await expect.poll(() => page.locator('.session-page .folder').first().textContent()).toBe(folder)

    // Turn 1: the answer streams in, then the bash card shows the command, exit code and output.
    await page.fill('textarea.prompt', 'look around')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.msg.assistant.streaming', { hasText: 'Let me' }).waitFor()
    const card = page.locator('.tool[data-tool="bash"]').first()
    await card.locator('.badge.ok', { hasText: 'exit 0' }).waitFor()
    expect(await card.locator('.tool-command').textContent()).toBe('echo hello-from-bash')
    expect(await card.locator('.tool-output').first().textContent()).toContain('hello-from-bash')
    await page.locator('.markdown', { hasText: 'The command said: hello-from-bash' }).waitFor()
    await page.locator('.markdown strong', { hasText: 'the folder' }).waitFor()
    await page.locator('.turn-end', { hasText: 'turn 1 · completed' }).waitFor()
    // The turn's cost, as the one usage derivation prices the log.
    const sessionId = decodeURIComponent(new URL(page.url()).hash.slice('#/session/'.length))
    const turn1 = turnUsage(
      test.harness.agents.get(sessionId)!.session.events,
      1,
      resolvePriceTable(test.harness.config.pricing),
    )
    expect(turn1.outputTokens).toBeGreaterThan(0)
    expect(turn1.cost).toBeGreaterThan(0)
    expect(await page.locator('.turn-end .turn-cost').first().textContent()).toBe(
      formatCost(turn1.cost, 'USD'),
    )

    // Shift+Enter adds a line; Enter sends. Turn 2 asks: the card shows exactly what will run.
    await page.fill('textarea.prompt', 'touch a file')
    await page.press('textarea.prompt', 'Shift+Enter')
    await page.type('textarea.prompt', 'please')
    expect(await page.inputValue('textarea.prompt')).toBe('touch a file\nplease')
    await page.press('textarea.prompt', 'Enter')
    const approval = page.locator('.approval')
    await approval.waitFor()
    expect(await approval.locator('.approval-command').textContent()).toBe('touch approved.txt')
    expect(existsSync(join(folder, 'approved.txt'))).toBe(false)
    await approval.locator('button.approve').click()
    await page.locator('.markdown', { hasText: 'touched it' }).waitFor()
    expect(existsSync(join(folder, 'approved.txt'))).toBe(true)
    await expect.poll(() => approval.count()).toBe(0)

    // Turn 3: stopped while it streams.
    await page.fill('textarea.prompt', 'write a lot')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.msg.assistant.streaming', { hasText: 'word word' }).waitFor()
    await page.click('button.stop')
    await page.locator('.turn-end', { hasText: 'turn 3 · aborted' }).waitFor()
    await page.locator('button.send').waitFor()
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'web-session.png') })

    // A reload shows the same transcript, from the log.
    const before = await transcriptText(page)
    await page.reload()
    await page.locator('.turn-end', { hasText: 'turn 3 · aborted' }).waitFor()
    expect(await transcriptText(page)).toEqual(before)
    expect(before.filter((line) => line.startsWith('bash'))).toHaveLength(2)

    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })
})

/** The visible transcript, one line per item (tool cards by name and command). */
async function transcriptText(page: import('playwright-core').Page): Promise<string[]> {
  return page.locator('.vl-items > [data-key]').evaluateAll((nodes) =>
    nodes.map((node) => {
      const tool = node.querySelector('.tool')
      if (tool)
        return `${tool.getAttribute('data-tool')} ${tool.querySelector('.tool-command')?.textContent ?? ''}`
      return (node.textContent ?? '').replace(/\s+/g, ' ').trim()
    }),
  )
}
