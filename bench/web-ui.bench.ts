// Web UI benchmarks, in Debian's Chromium (playwright-core), measured in the same run:
// 1. Live latency: from the agent emitting a text delta to the browser's DOM showing it,
//    against the same emit reaching the terminal chat's write (its TranscriptView and
//    Screen, wired as the chat wires them). Both listen to one agent's one stream of deltas.
// 2. Opening a 10,000-event session until its last answer is on screen, against the
//    same page fetching and parsing the session's JSON (the bare data transfer).
// The live latency is also split at the page's EventSource: the hop there (against the same
// hop with no dsh code: a bare Node server's event to an empty page, same browser and pace)
// and the page's own work from the message to the DOM (against the terminal's write).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Screen } from '../src/apps/chat/screen.js'
import { TranscriptView } from '../src/apps/chat/transcript-view.js'
import { colorsFor } from '../src/apps/shared/render.js'
import { startWebServer } from '../src/apps/web/index.js'
import { resolveConfig, validateConfig } from '../src/config/index.js'
import { createHarness } from '../src/harness/index.js'
import { startLoopbackModel } from '../src/llm/index.js'
import { launchChromium } from '../test/support/browser.js'
import { writeLargeSession } from '../test/support/large-session.js'
import { bareSseMs } from './bare-sse.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const DELTAS = 150
/** Pauses between streamed deltas: about 100 tokens a second (a fast model) and 25 (a slow one). */
const DELTA_GAPS_MS = [10, 40]
const ROUNDS = 3
const LATENCY_TARGET = 1.5
/** The hop into the page against a bare event to an empty page: more would be a delay of ours. */
const HOP_TARGET = 1.25
const OPEN_EVENTS = 10_000
const OPEN_ROUNDS = 5
const OPEN_TARGET_MS = 1000

const now = () => performance.timeOrigin + performance.now()
const marker = (index: number) => `m${String(index).padStart(4, '0')}`

export default async function run(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-bench-web-'))
  const text = Array.from({ length: DELTAS }, (_, index) => `${marker(index)}\n`).join('')
  const model = await startLoopbackModel(
    DELTA_GAPS_MS.flatMap((delayMs) => Array.from({ length: ROUNDS }, () => ({ text, delayMs }))),
  )
  const harness = await createHarness({
    config: resolveConfig(validateConfig('bench', { dshHome: home, model: { maxRetries: 0 } }), {}),
    model: { baseUrl: model.baseUrl, apiKey: 'bench-key' },
  })
  const server = await startWebServer({ harness, port: 0 })
  const browser = await launchChromium()
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    // Notes when each marker's message reaches the page, before the app's own handler runs.
    await page.addInitScript(() => {
      const arrived: Record<string, number> = {}
      ;(window as unknown as { __arrived: Record<string, number> }).__arrived = arrived
      const Native = window.EventSource
      window.EventSource = class extends Native {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init)
          this.addEventListener('message', (message) => {
            const at = performance.timeOrigin + performance.now()
            for (const match of (message.data as string).matchAll(/m\d{4}/g)) arrived[match[0]] ??= at
          })
        }
      }
    })
    await page.goto(server.url)
    const id = await page.evaluate(async (cwd) => {
      // The page keeps the printed URL's token in its origin's storage (src/apps/web/client/token.ts).
      const token = localStorage.getItem('dsh-web-token')
      const response = await fetch('/api/sessions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ cwd }),
      })
      return ((await response.json()) as { id: string }).id
    }, home)
    await page.goto(`${server.origin}/#/session/${encodeURIComponent(id)}`)
    await page.locator('.mode.hosted').waitFor()
    const agent = harness.agents.get(id)!

    // The terminal chat's renderer on the same agent, writing to a sink that notes when each marker is written.
    const terminalSeen = new Map<string, number>()
    const out = {
      columns: 120,
      rows: 40,
      write: (chunk: string) => {
        const at = now()
        for (const match of chunk.matchAll(/m\d{4}/g))
          if (!terminalSeen.has(match[0])) terminalSeen.set(match[0], at)
        return true
      },
    }
    let view: TranscriptView
    const screen = new Screen(out, () => ({ lines: [...view.live(), '> '], cursor: { row: 0, column: 2 } }))
    view = new TranscriptView(
      colorsFor({ isTTY: true } as NodeJS.WriteStream, {}),
      () => 120,
      (lines) => screen.commit(lines),
    )
    const emitted = new Map<string, number>()
    let pending = ''
    agent.onOutput((output) => {
      if (output.type === 'text-delta') {
        const at = now()
        pending += output.text
        for (const match of pending.matchAll(/m\d{4}/g)) if (!emitted.has(match[0])) emitted.set(match[0], at)
      }
      view.handle(output)
      screen.schedule()
    })
    // The page notes when each marker first appears in the DOM.
    await page.evaluate(() => {
      const seen: Record<string, number> = {}
      ;(window as unknown as { __seen: Record<string, number> }).__seen = seen
      new MutationObserver(() => {
        const at = performance.timeOrigin + performance.now()
        const live = document.querySelector('.msg.assistant.streaming')?.textContent ?? ''
        for (const match of live.matchAll(/m\d{4}/g)) if (seen[match[0]] === undefined) seen[match[0]] = at
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })

    const latency: BenchRow[] = []
    for (const gapMs of DELTA_GAPS_MS) {
      const web: number[] = []
      const terminal: number[] = []
      const hop: number[] = []
      const render: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        emitted.clear()
        terminalSeen.clear()
        await page.evaluate(() => {
          const marks = window as unknown as {
            __seen: Record<string, number>
            __arrived: Record<string, number>
          }
          for (const record of [marks.__seen, marks.__arrived])
            for (const key of Object.keys(record)) delete record[key]
        })
        pending = ''
        await agent.prompt(`round ${round}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
        const { seen, arrived } = await page.evaluate(() => {
          const marks = window as unknown as {
            __seen: Record<string, number>
            __arrived: Record<string, number>
          }
          return { seen: marks.__seen, arrived: marks.__arrived }
        })
        // The first round warms up (JIT, connection); the others count.
        if (round === 0) continue
        for (let index = 0; index < DELTAS; index++) {
          const key = marker(index)
          const at = emitted.get(key)
          if (at === undefined || seen[key] === undefined || !terminalSeen.has(key)) continue
          web.push(seen[key] - at)
          terminal.push(terminalSeen.get(key)! - at)
          if (arrived[key] === undefined) continue
          hop.push(arrived[key] - at)
          render.push(seen[key] - arrived[key])
        }
      }
      const webMs = median(web)
      const terminalMs = median(terminal)
      const hopMs = median(hop)
      const renderMs = median(render)
      const bareHopMs = await bareSseMs(browser, DELTAS, gapMs)
      latency.push({
        name: `web live latency, text delta emit → browser DOM (median of ${web.length}, deltas ${gapMs} ms apart)`,
        measured: `${webMs.toFixed(2)} ms`,
        baseline: `${terminalMs.toFixed(2)} ms emit → terminal chat write`,
        ratio: webMs / terminalMs,
        target: `≤ ${LATENCY_TARGET}× terminal`,
        pass: webMs / terminalMs <= LATENCY_TARGET,
      })
      latency.push({
        name: `  of which emit → the page's EventSource message (${gapMs} ms apart)`,
        measured: `${hopMs.toFixed(2)} ms`,
        baseline: `${bareHopMs.toFixed(2)} ms bare Node event → empty page`,
        ratio: hopMs / bareHopMs,
        target: `≤ ${HOP_TARGET}× the bare hop`,
        pass: hopMs / bareHopMs <= HOP_TARGET,
      })
      latency.push({
        name: `  of which message → DOM, the page's own work (${gapMs} ms apart)`,
        measured: `${renderMs.toFixed(2)} ms`,
        baseline: `${terminalMs.toFixed(2)} ms emit → terminal chat write`,
        ratio: renderMs / terminalMs,
        target: `≤ ${LATENCY_TARGET}× terminal`,
        pass: renderMs / terminalMs <= LATENCY_TARGET,
      })
    }

    // Opening a large session, against fetching its JSON in the same page.
    const persistence = harness.ctx.get('sessionPersistence')!
    const events = await writeLargeSession(persistence, 'bench-large', home, OPEN_EVENTS)
    const lastAnswer = `Answer ${Math.ceil(events / 11)}:`
    const opens: number[] = []
    const fetches: number[] = []
    for (let round = 0; round < OPEN_ROUNDS + 1; round++) {
      await page.goto(`${server.origin}/#/`)
      await page.locator('.sessions-page').waitFor()
      const fetchMs = await page.evaluate(async () => {
        const started = performance.now()
        await (await fetch('/api/sessions/bench-large')).json()
        return performance.now() - started
      })
      const started = now()
      await page.goto(`${server.origin}/#/session/bench-large`)
      await page.locator('.markdown', { hasText: lastAnswer }).waitFor()
      if (round === 0) continue
      opens.push(now() - started)
      fetches.push(fetchMs)
    }
    const openMs = median(opens)
    const fetchMs = median(fetches)
    return [
      ...latency,
      {
        name: `web open ${events}-event session until its last answer shows (median of ${OPEN_ROUNDS})`,
        measured: `${openMs.toFixed(0)} ms`,
        baseline: `${fetchMs.toFixed(0)} ms fetch + parse of its JSON in the page`,
        ratio: openMs / fetchMs,
        target: `≤ ${OPEN_TARGET_MS} ms`,
        pass: openMs <= OPEN_TARGET_MS,
      },
    ]
  } finally {
    await browser.close()
    await server.close()
    await harness.dispose()
    await model.close()
    rmSync(home, { recursive: true, force: true })
  }
}
