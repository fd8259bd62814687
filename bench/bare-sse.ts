// The floor of the web UI's live path on this machine: the same kind of server-sent event
// written by a bare Node HTTP server to an empty page in the same Chromium, at the same
// pace, timed from the write to the page's `message` handler. No dsh code on either side.

import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { median } from './stats.js'

const PAGE = `<!doctype html><script>
window.__arrived = {}
new EventSource('/sse').onmessage = (message) => {
  window.__arrived[message.data] = performance.timeOrigin + performance.now()
}
</script>`

/** Median ms from `res.write` to the page's handler over `count` events `gapMs` apart (the first 10 warm up). */
export async function bareSseMs(browser: Browser, count: number, gapMs: number): Promise<number> {
  let stream: ServerResponse | undefined
  const server = createServer((req, res) => {
    if (req.url === '/sse') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' })
      res.flushHeaders()
      stream = res
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
    res.end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
    while (!stream) await new Promise((resolve) => setTimeout(resolve, 5))
    const sentAt: number[] = []
    for (let index = 0; index < count; index++) {
      await new Promise((resolve) => setTimeout(resolve, gapMs))
      sentAt.push(performance.timeOrigin + performance.now())
      stream.write(`data: ${index}\n\n`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
    const arrived = await page.evaluate(
      () => (window as unknown as { __arrived: Record<string, number> }).__arrived,
    )
    const hops = sentAt.slice(10).flatMap((at, index) => {
      const seen = arrived[String(index + 10)]
      return seen === undefined ? [] : [seen - at]
    })
    return median(hops)
  } finally {
    stream?.end()
    await context.close()
    server.close()
  }
}
