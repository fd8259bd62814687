// Web fetch benchmark: HTML-to-Markdown conversion of a 2 MB page against reading that
// page's body from a local server (fetch + arrayBuffer + UTF-8 decode), measured in the
// same run, in alternating pairs. Target: conversion ≤ 3× the read, so a big page does
// not stall a turn.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { htmlToMarkdown } from '../src/tools/web/http/html-to-markdown.js'
import { HttpFetchProvider } from '../src/tools/web/http/http-fetch-provider.js'
import { median } from './stats.js'
import type { BenchRow } from './types.js'

const PAGE_BYTES = 2 * 1024 * 1024
const WARMUP = 3
const SAMPLES = 15
const TARGET_RATIO = 3

/** A documentation-like page: navigation, nested sections, lists, tables, code, scripts and styles. */
export function benchPage(bytes: number): string {
  const parts = [
    '<!doctype html><html><head><meta charset="utf-8"><title>Big reference page</title>',
    '<style>body{font-family:sans-serif} .nav a{color:#333}</style><script>window.analytics={q:[]}</script></head>',
    '<body><nav class="nav"><ul><li><a href="/">Home</a></li><li><a href="/docs/">Docs</a></li></ul></nav><main>',
  ]
  let size = parts.join('').length
  for (let n = 0; size < bytes; n++) {
    const section = `<section id="s${n}"><h2>Section ${n}: streams &amp; buffers</h2>
<div class="body"><div><p>Some <strong>bold</strong> and <em>emphasised</em> text with a <a href="/docs/page-${n}.html">relative link ${n}</a>
and <code>inline.code(${n})</code>. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>
<ul><li>first item</li><li>second <a href="https://example.com/${n}">item</a><ul><li>nested</li></ul></li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>row ${n}</td><td>${n * 7}</td></tr></table>
<pre><code>const value = ${n}\nconsole.log(value &lt; 10)</code></pre>
<script>track(${n})</script></div></div></section>\n`
    parts.push(section)
    size += section.length
  }
  parts.push('</main></body></html>')
  return parts.join('')
}

export default async function run(): Promise<BenchRow[]> {
  const body = Buffer.from(benchPage(PAGE_BYTES))
  const server = createServer((_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': body.length,
      // Every sample opens its own connection: no idle keep-alive socket to time out.
      Connection: 'close',
    })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.html`
  const provider = new HttpFetchProvider({ allowPrivateHosts: ['127.0.0.1'] })
  try {
    const read = async () => {
      const started = performance.now()
      const response = await fetch(url)
      const text = new TextDecoder().decode(await response.arrayBuffer())
      return { ms: performance.now() - started, text }
    }
    const convert = (text: string) => {
      const started = performance.now()
      htmlToMarkdown(text, url)
      return performance.now() - started
    }
    const whole = async () => {
      const started = performance.now()
      await provider.fetch({ url, signal: new AbortController().signal })
      return performance.now() - started
    }
    for (let i = 0; i < WARMUP; i++) {
      convert((await read()).text)
      await whole()
    }
    const reads: number[] = []
    const converts: number[] = []
    const wholes: number[] = []
    const ratios: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      const { ms, text } = await read()
      const converted = convert(text)
      reads.push(ms)
      converts.push(converted)
      ratios.push(converted / ms)
      wholes.push(await whole())
    }
    const ratio = median(ratios)
    const readMs = median(reads)
    const wholeMs = median(wholes)
    return [
      {
        name: 'web_fetch 2 MB page: HTML to Markdown',
        measured: `${median(converts).toFixed(1)} ms`,
        baseline: `read the body: ${readMs.toFixed(1)} ms`,
        ratio,
        target: `≤ ${TARGET_RATIO}× read`,
        pass: ratio <= TARGET_RATIO,
      },
      {
        name: 'web_fetch 2 MB page: whole provider call',
        measured: `${wholeMs.toFixed(1)} ms`,
        baseline: `read the body: ${readMs.toFixed(1)} ms`,
        ratio: wholeMs / readMs,
        target: 'report only',
        pass: true,
      },
    ]
  } finally {
    server.closeAllConnections()
    server.close()
  }
}
