// The web UI renders hostile model and tool text inert, shows a session another process
// writes read-only and live, keeps two tabs in step, and opens a 10,000-event session windowed.

import { describe, expect, it } from 'vitest'
import { startTestHarness } from '../../support/harness.js'
import { writeLargeSession } from '../../support/large-session.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-')

const HOSTILE = [
  '<img src=x onerror="alert(\'img\');window.__pwned=1">',
  '<script>alert("script");window.__pwned=2</script>',
  '[click me](javascript:alert("link"))',
  '<a href="javascript:alert(\'raw\')">raw link</a>',
].join('\n\n')

function sessionUrl(origin: string, id: string): string {
  return `${origin}/#/session/${encodeURIComponent(id)}`
}

describe('dsh web safety and liveness', () => {
  it('renders hostile markup from the model and from tool output as inert text', async () => {
    const folder = tempDir()
    const shellPayload = `printf '%s\\n' '<img src=x onerror=alert(1)>' '<script>alert(2)</script>' 'javascript:alert(3)'`
    const { server, test } = await start({
      script: [
        {
          text: `${HOSTILE}\n\nstill here`,
          toolCalls: [{ name: 'bash', arguments: { command: shellPayload } }],
        },
        { text: HOSTILE },
      ],
    })
    const agent = await test.harness.agents.create({ sessionId: 'hostile', meta: { cwd: folder } })
    await agent.prompt(`<img src=x onerror=alert('prompt')> ${HOSTILE}`)
    await test.harness.agents.dispose(agent.id)

    const { page, dialogs, errors } = await openPage(browser(), server.url)
    await page.goto(sessionUrl(server.origin, 'hostile'))
    await page.locator('.turn-end', { hasText: 'turn 1 · completed' }).waitFor()
    const app = page.locator('#app')
    // Nothing executable reached the DOM: no images, scripts, handlers or javascript: links.
    expect(await app.locator('img, script, iframe, object, embed').count()).toBe(0)
    const handlers = await page.evaluate(
      () =>
        [...document.querySelectorAll('#app *')].filter((node) =>
          [...node.attributes].some((a) => a.name.startsWith('on')),
        ).length,
    )
    expect(handlers).toBe(0)
    const hrefs = await app
      .locator('a[href]')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')!))
    expect(hrefs.filter((href) => /^\s*javascript:/i.test(href))).toEqual([])
    // The text is shown as text, and the tool output too.
    expect(await app.locator('.markdown').first().textContent()).toContain('<img src=x onerror=')
    expect(await app.locator('.tool-output').first().textContent()).toContain('<script>alert(2)</script>')
    // Clicking the would-be links does nothing.
    await app.locator('.markdown a', { hasText: 'click me' }).first().click()
    await app.locator('.markdown', { hasText: 'raw link' }).first().click()
    await page.waitForTimeout(200)
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('shows a session id with bidi controls and invisible characters escaped, never raw', async () => {
    const { server, test } = await start({ script: [{ text: 'ok' }] })
    const id = 'invoice-\u202epdf.exe\u200b\ufeff'
    const agent = await test.harness.agents.create({ sessionId: id, meta: { cwd: tempDir() } })
    await agent.prompt('hi')
    await test.harness.agents.dispose(agent.id)

    const { page, errors } = await openPage(browser(), server.url)
    await page.goto(sessionUrl(server.origin, id))
    const shown = page.locator('.session-bar .session-id')
    await shown.waitFor()
    expect(await shown.textContent()).toBe('invoice-\\u202epdf.exe\\u200b\\ufeff')
    expect(await shown.getAttribute('title')).toBe('invoice-\\u202epdf.exe\\u200b\\ufeff')
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('renders a streaming answer as sanitized markdown while it arrives, hostile payloads inert mid-stream', async () => {
    const folder = tempDir()
    const { server } = await start({
      script: [{ text: `**bold start** and \`code\`\n\n${HOSTILE}\n\n**done** at the end`, delayMs: 30 }],
    })
    const { page, dialogs, errors } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', folder)
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    // Everything the page ever adds is checked as it is added, not only the final DOM.
    await page.evaluate(() => {
      const seen = { unsafe: [] as string[], liveMarkdown: 0, boldWhileStreaming: false }
      ;(window as unknown as { __seen: typeof seen }).__seen = seen
      const check = (node: Node) => {
        if (!(node instanceof Element)) return
        for (const element of [node, ...node.querySelectorAll('*')]) {
          if (/^(img|script|iframe|object|embed)$/i.test(element.tagName)) seen.unsafe.push(element.tagName)
          for (const attribute of element.attributes)
            if (attribute.name.startsWith('on')) seen.unsafe.push(`${element.tagName}[${attribute.name}]`)
          const href = element.getAttribute('href')
          if (href !== null && /^\s*javascript:/i.test(href)) seen.unsafe.push(`href=${href}`)
          if (element.tagName === 'STRONG' && element.closest('.msg.assistant.streaming .live-markdown'))
            seen.boldWhileStreaming = true
        }
      }
      new MutationObserver((records) => {
        for (const record of records) {
          // Each markdown render of the streaming answer replaces the element's children.
          if (record.target instanceof Element && record.target.classList.contains('live-markdown'))
            seen.liveMarkdown += 1
          for (const node of record.addedNodes) check(node)
          if (record.type === 'attributes') check(record.target)
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true })
    })
    await page.fill('textarea.prompt', 'stream it')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.turn-end', { hasText: 'turn 1 · completed' }).waitFor()
    const seen = await page.evaluate(
      () =>
        (
          window as unknown as {
            __seen: { unsafe: string[]; liveMarkdown: number; boldWhileStreaming: boolean }
          }
        ).__seen,
    )
    expect(seen.unsafe).toEqual([])
    // Markdown was rendered while the answer streamed, more than once (progressively).
    expect(seen.boldWhileStreaming).toBe(true)
    expect(seen.liveMarkdown).toBeGreaterThan(1)
    expect(await page.locator('.markdown').last().textContent()).toContain('<img src=x onerror=')
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('shows two tabs the same live turn, and a session another process writes read-only and live', async () => {
    const folder = tempDir()
    const { server, test } = await start({
      // It streams until stopped, so the streaming state is there to see whatever the load.
      script: [{ endless: { text: 'answer seen by both tabs ', intervalMs: 50 } }],
    })
    const id = await (
      (await fetch(`${server.origin}/api/sessions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.secrets.token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ cwd: folder }),
      }).then((response) => response.json())) as { id: string }
    ).id
    const one = await openPage(browser(), server.url)
    const two = await openPage(browser(), server.url)
    for (const tab of [one, two]) {
      await tab.page.goto(sessionUrl(server.origin, id))
      await tab.page.locator('.mode.hosted').waitFor()
    }
    await one.page.fill('textarea.prompt', 'hello')
    await one.page.press('textarea.prompt', 'Enter')
    // The other tab sees the streamed answer, and the turn's end when the first tab stops it.
    await two.page.locator('.msg.assistant.streaming', { hasText: 'answer seen by both tabs' }).waitFor()
    await one.page.locator('.msg.assistant.streaming', { hasText: 'answer seen by both tabs' }).waitFor()
    await one.page.click('button.stop')
    for (const tab of [one, two]) {
      await tab.page.locator('.turn-end', { hasText: 'turn 1 · aborted' }).waitFor()
      await tab.page.locator('.markdown', { hasText: 'answer seen by both tabs' }).waitFor()
    }

    // Another process (a second harness with its own backend instance) writes a session.
    const other = await startTestHarness({
      home: test.home,
      script: [{ text: 'first from elsewhere' }, { text: 'second from elsewhere' }],
    })
    try {
      const writer = await other.harness.agents.create({
        sessionId: 'written-elsewhere',
        meta: { cwd: folder },
      })
      await writer.prompt('elsewhere one')
      await one.page.goto(sessionUrl(server.origin, 'written-elsewhere'))
      await one.page.locator('.mode.readonly').waitFor()
      await one.page.locator('.markdown', { hasText: 'first from elsewhere' }).waitFor()
      // Its new turns appear live (tail).
      await writer.prompt('elsewhere two')
      await one.page.locator('.markdown', { hasText: 'second from elsewhere' }).waitFor()
      // Writing it from the web is refused: the other process holds the writer lock.
      await one.page.fill('textarea.prompt', 'may I?')
      await one.page.press('textarea.prompt', 'Enter')
      await one.page.locator('.notice-bar', { hasText: 'read-only' }).waitFor()
      expect(writer.session.events.filter((event) => event.type === 'user/message')).toHaveLength(2)
      await one.page.locator('.mode.readonly').waitFor()
    } finally {
      await other.close()
    }
    for (const tab of [one, two]) {
      expect(tab.dialogs).toEqual([])
      expect(tab.errors).toEqual([])
      await tab.page.context().close()
    }
  })

  // How fast it opens is a benchmark (bench/web-ui.bench.ts), not a timed test: this checks it
  // opens whole and windowed.
  it('opens a 10,000-event session at its last turn, windowed', async () => {
    const folder = tempDir()
    const { server, test } = await start()
    const persistence = test.harness.ctx.get('sessionPersistence')!
    const count = await writeLargeSession(persistence, 'large-session', folder, 10_000)
    expect(count).toBeGreaterThanOrEqual(10_000)
    const { page, errors } = await openPage(browser(), server.url)
    await page.goto(sessionUrl(server.origin, 'large-session'))
    const lastTurn = Math.ceil(count / 11)
    await page.locator('.markdown', { hasText: `Answer ${lastTurn}:` }).waitFor()
    // Windowed: only the items near the viewport are in the DOM.
    expect(await page.locator('.vl-items > [data-key]').count()).toBeLessThan(200)
    // Scrolling to the top brings the first turn in, and the view stays there even when the
    // scroll lands while a scroll to the end is still due: any render while the view follows
    // the end (here, one its own scroll event causes) asks for one on the next frame.
    const tops = await page.locator('.vl').evaluate(async (node) => {
      node.dispatchEvent(new Event('scroll'))
      await new Promise((resolve) => setTimeout(resolve, 0))
      node.scrollTop = 0
      const seen: number[] = []
      for (let frame = 0; frame < 3; frame++) {
        await new Promise((resolve) => requestAnimationFrame(resolve))
        seen.push(node.scrollTop)
      }
      return seen
    })
    expect(tops).toEqual([0, 0, 0])
    await page.locator('.msg.user', { hasText: 'question 1:' }).waitFor()
    expect(errors).toEqual([])
    await page.context().close()
  })
})
