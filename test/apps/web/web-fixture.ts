// The web UI under test: a real harness (loopback model, temporary home) with `dsh web`'s
// server on an ephemeral port, and one Chromium shared by a test file.

import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, onTestFailed } from 'vitest'
import { startWebServer, type WebServer } from '../../../src/apps/web/index.js'
import type { Script } from '../../../src/llm/index.js'
import { launchChromium } from '../../support/browser.js'
import { startTestHarness, type TestHarness, type TestHarnessOptions } from '../../support/harness.js'

/** The built front end (`npm run build`, which `npm test` runs first). */
export const ASSETS_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url))

export interface WebFixture {
  test: TestHarness
  server: WebServer
}

export function useBrowser(): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    if (!existsSync(`${ASSETS_DIR}index.html`))
      throw new Error('the web front end is not built: run `npm run build`')
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })
  return () => browser!
}

/** Starts harness + server per call; everything is closed after the current test. */
export function useWebServers(): (options?: TestHarnessOptions & { script?: Script }) => Promise<WebFixture> {
  const open: WebFixture[] = []
  afterEach(async () => {
    for (const fixture of open.splice(0).reverse()) {
      await fixture.server.close()
      await fixture.test.close()
    }
  })
  return async (options = {}) => {
    const test = await startTestHarness({
      permissions: { canAsk: true, frontEnd: 'interactive' },
      ...options,
    })
    const server = await startWebServer({ harness: test.harness, port: 0, assetsDir: ASSETS_DIR })
    const fixture = { test, server }
    open.push(fixture)
    return fixture
  }
}

/** The header every API call of a test sends: the access token as a bearer credential. */
export function bearer(server: WebServer): { authorization: string } {
  return { authorization: `Bearer ${server.secrets.token}` }
}

/** A page that records dialogs and page errors, so a test can assert nothing ran. */
export async function openPage(
  browser: Browser,
  url: string,
): Promise<{ page: Page; dialogs: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  const page = await context.newPage()
  // Shorter than the test's timeout, so a wait that never ends names its locator; long
  // enough for a page on two cores shared with the rest of the suite.
  page.setDefaultTimeout(60_000)
  const dialogs: string[] = []
  const errors: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on('pageerror', (error) => errors.push(error.message))
  recordTraffic(page)
  await page.goto(url)
  return { page, dialogs, errors }
}

/**
 * Keeps the page's requests, answers and console lines, and prints them when the test
 * fails: a wait that timed out then shows what the page asked and got (a refused request
 * body is what explained the last flaky failure).
 */
function recordTraffic(page: Page): void {
  const started = Date.now()
  const lines: string[] = []
  const note = (line: string) => lines.push(`${Date.now() - started} ms ${line}`)
  page.on('request', (request) =>
    note(`${request.method()} ${request.url()} ${request.postData()?.slice(0, 300) ?? ''}`),
  )
  page.on('response', (response) => {
    note(`${response.status()} ${response.url()}`)
    if (response.status() >= 400)
      void response.text().then(
        (body) => note(`  body ${body.slice(0, 300)}`),
        () => {},
      )
  })
  page.on('requestfailed', (request) => note(`failed ${request.url()} ${request.failure()?.errorText ?? ''}`))
  page.on('console', (message) => note(`console ${message.type()} ${message.text()}`))
  page.on('framenavigated', (frame) => note(`navigated ${frame.url()}`))
  onTestFailed(() => {
    process.stderr.write(`the page's traffic (${page.url()}):\n${lines.slice(-200).join('\n')}\n`)
  })
}
