// The access token is scoped to the page's origin (scheme, host and port), in Chromium: a
// program on another port of the same host gets nothing from the browser, two servers in one
// browser keep their own tokens, and a page whose server went away says so.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()
const tempDir = useTempDirs('dsh-web-origin-')

/** Another program on 127.0.0.1 (a dev server the agent started): records what browsers send it. */
const others: Server[] = []
afterEach(async () => {
  for (const server of others.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

async function startOtherServer(): Promise<{
  origin: string
  seen: { url: string; headers: IncomingHttpHeaders }[]
}> {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = []
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers })
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<h1>my dev app</h1>')
  })
  others.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

describe('dsh web credentials are scoped to its origin', () => {
  it('sends nothing to a server on another port of the same host, after the page was opened', async () => {
    const { server, test } = await start({ script: [{ text: 'hi' }] })
    const other = await startOtherServer()
    const { page, errors } = await openPage(browser(), server.url)
    // The token left the address bar; the page works with it.
    expect(page.url()).not.toContain(server.secrets.token)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', tempDir())
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    expect(test.harness.agents.list()).toHaveLength(1)

    // The user looks at the dev server in the same browser.
    const visit = await page.context().newPage()
    await visit.goto(`${other.origin}/`)
    await visit.locator('h1', { hasText: 'my dev app' }).waitFor()
    expect(other.seen.length).toBeGreaterThan(0)
    for (const request of other.seen) {
      expect(request.headers.cookie, request.url).toBeUndefined()
      expect(JSON.stringify(request), request.url).not.toContain(server.secrets.token)
    }
    // Nor can its pages read what dsh's page stored.
    expect(await visit.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(
      server.secrets.token,
    )
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('keeps two servers in one browser working side by side (one opened by an old ?token= URL)', async () => {
    const a = await start({ script: [] })
    const b = await start({ script: [] })
    const one = await openPage(browser(), a.server.url)
    await one.page.locator('button.new-session').waitFor()
    const two = await one.page.context().newPage()
    await two.goto(`${b.server.origin}/?token=${b.server.secrets.token}`)
    expect(two.url()).not.toContain(b.server.secrets.token)
    for (const [page, fixture] of [
      [one.page, a],
      [two, b],
    ] as const) {
      // A reload reads the stored token; a mutation is accepted.
      await page.reload()
      await page.click('button.new-session')
      await page.fill('.new-session-dialog .folder-input', tempDir())
      await page.click('.new-session-dialog button.create')
      await page.locator('.session-page .mode.hosted').waitFor()
      expect(fixture.test.harness.agents.list()).toHaveLength(1)
    }
    expect(one.errors).toEqual([])
    await one.page.context().close()
  })

  it('says the connection is lost when the server stops mid-turn, and no longer shows the turn running', async () => {
    const { server } = await start({ script: [{ endless: { text: 'tick ', intervalMs: 50 } }] })
    const { page } = await openPage(browser(), server.url)
    await page.click('button.new-session')
    await page.fill('.new-session-dialog .folder-input', tempDir())
    await page.click('.new-session-dialog button.create')
    await page.locator('.session-page .mode.hosted').waitFor()
    await page.fill('textarea.prompt', 'go')
    await page.press('textarea.prompt', 'Enter')
    await page.locator('.msg.assistant.streaming', { hasText: 'tick' }).waitFor()
    await page.locator('.session-page .mode', { hasText: 'running here' }).waitFor()

    await server.close()
    await page.locator('.notice-bar', { hasText: 'connection to dsh web lost' }).waitFor({ timeout: 30_000 })
    expect(await page.locator('.session-page .mode').textContent()).toBe('connection lost')
    expect(await page.locator('button.stop').count()).toBe(0)
    await page.context().close()
  })

  it('the sessions page says the connection is lost too when the server stops', async () => {
    const { server } = await start()
    const { page, errors } = await openPage(browser(), server.url)
    await page.locator('button.new-session').waitFor()
    expect(await page.locator('.notice-bar').count()).toBe(0)
    await server.close()
    await page.locator('.notice-bar', { hasText: 'connection to dsh web lost' }).waitFor({ timeout: 30_000 })
    expect(errors).toEqual([])
    await page.context().close()
  })
})
