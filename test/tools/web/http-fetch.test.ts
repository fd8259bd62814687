import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { isWebError, type WebError } from '../../../src/tools/web/errors.js'
import { convertHtml, htmlToMarkdown, MAX_NESTING } from '../../../src/tools/web/http/html-to-markdown.js'
import type { HttpFetchOptions } from '../../../src/tools/web/http/http-fetch-provider.js'
import { HttpFetchProvider } from '../../../src/tools/web/http/http-fetch-provider.js'
import { page, type Route, redirect, startTestSite, type TestSite } from '../../support/web-site.js'

const ARTICLE = `<!doctype html>
<html><head><title>The  Article</title>
<style>body { color: red } .secret-style {}</style>
<script>window.secretScript = "alert(1)"</script>
</head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/docs/">Docs</a></li></ul></nav>
<main><article>
  <h1>Main &amp; heading</h1>
  <div><div><section><p>First <strong>strong</strong> and <em>soft</em> words, with
     <a href="guide.html">a relative link</a>.</p>
     <div><p>Deeply <span><span><code>nested()</code></span></span> text</p></div>
  </section></div></div>
  <ul><li>alpha<ol><li>inner one</li><li>inner two</li></ol></li><li>beta</li></ul>
  <script type="module">console.log("module script")</script>
  <noscript>enable javascript</noscript>
  <table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>x</td><td>1</td></tr></tbody></table>
  <pre><code>if (a &lt; b) {
  return 1
}</code></pre>
</article></main></body></html>`

const sites: TestSite[] = []
afterEach(async () => {
  for (const site of sites.splice(0)) await site.close()
})

async function site(routes: Record<string, Route>): Promise<TestSite> {
  const started = await startTestSite(routes)
  sites.push(started)
  return started
}

function provider(target: TestSite, options: HttpFetchOptions = {}): HttpFetchProvider {
  return new HttpFetchProvider({ allowPrivateHosts: [`127.0.0.1:${target.port}`], ...options })
}

const fetchOnce = (p: HttpFetchProvider, url: string) =>
  p.fetch({ url, signal: new AbortController().signal })

async function failure(promise: Promise<unknown>): Promise<WebError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  if (!isWebError(error)) throw new Error(`expected a WebError, got ${String(error)}`)
  return error
}

describe('plain-HTTP fetch', () => {
  it('converts nested markup to Markdown and drops scripts and styles', async () => {
    const s = await site({ '/docs/article.html': page(ARTICLE) })
    const result = await fetchOnce(provider(s), `${s.origin}/docs/article.html`)
    expect(result.title).toBe('The Article')
    expect(result.truncated).toBe(false)
    expect(result.costUsd).toBe(0)
    const md = result.markdown
    expect(md).toContain('# Main & heading')
    expect(md).toContain(
      `First **strong** and _soft_ words, with [a relative link](${s.origin}/docs/guide.html).`,
    )
    expect(md).toContain('Deeply `nested()` text')
    expect(md).toContain('- alpha\n  1. inner one\n  2. inner two\n- beta')
    expect(md).toContain('| Name | Value |\n| --- | --- |\n| x | 1 |')
    expect(md).toContain('```\nif (a < b) {\n  return 1\n}\n```')
    expect(md).toContain(`[Docs](${s.origin}/docs/)`)
    for (const hidden of [
      'secretScript',
      'alert',
      'color: red',
      'secret-style',
      'module script',
      'enable javascript',
    ])
      expect(md).not.toContain(hidden)
  })

  it('decodes non-UTF-8 pages from the header charset and from <meta>', async () => {
    const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]) // "Привет" in windows-1251
    const s = await site({
      '/header': page(
        Buffer.concat([Buffer.from('<p>'), cyrillic, Buffer.from('</p>')]),
        'text/html; charset=windows-1251',
      ),
      '/meta': page(
        Buffer.concat([
          Buffer.from(
            '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
          ),
          Buffer.from('</head><body><p>'),
          cyrillic,
          Buffer.from('</p></body></html>'),
        ]),
        'text/html',
      ),
      '/latin1': page(Buffer.from('<p>caf\xe9 cr\xe8me</p>', 'latin1'), 'text/html; charset=ISO-8859-1'),
      '/sjis': page(
        Buffer.concat([
          Buffer.from('<meta charset="shift_jis"><p>'),
          Buffer.from([0x93, 0xfa, 0x96, 0x7b]),
          Buffer.from('</p>'),
        ]),
        'text/html',
      ),
    })
    const p = provider(s)
    expect((await fetchOnce(p, `${s.origin}/header`)).markdown).toBe('Привет')
    expect((await fetchOnce(p, `${s.origin}/meta`)).markdown).toBe('Привет')
    expect((await fetchOnce(p, `${s.origin}/latin1`)).markdown).toBe('café crème')
    expect((await fetchOnce(p, `${s.origin}/sjis`)).markdown).toBe('日本')
  })

  it('follows a redirect chain and reports the final URL', async () => {
    const s = await site({
      '/a': redirect('/b', 301),
      '/b': redirect((site) => `${site.origin}/c`, 307),
      '/c': redirect('final', 302),
      '/final': page('<title>Final</title><p>arrived</p>'),
    })
    const result = await fetchOnce(provider(s), `${s.origin}/a`)
    expect(result.url).toBe(`${s.origin}/final`)
    expect(result.markdown).toBe('arrived')
    expect(s.hits).toEqual(['/a', '/b', '/c', '/final'])
  })

  it('stops after the redirect limit', async () => {
    const s = await site({ '/loop': redirect('/loop') })
    const error = await failure(fetchOnce(provider(s, { maxRedirects: 3 }), `${s.origin}/loop`))
    expect(error.message).toContain('more than 3 redirects')
    expect(s.hits).toHaveLength(4)
  })

  it('refuses a redirect to a loopback address that was not allowed', async () => {
    const other = await site({ '/secret': page('<p>internal admin page</p>') })
    const s = await site({
      '/to-ip': redirect(`${other.origin}/secret`),
      '/to-name': redirect(`http://localhost:${other.port}/secret`),
      '/to-v6': redirect(`http://[::1]:${other.port}/secret`),
    })
    const p = provider(s)
    for (const path of ['/to-ip', '/to-name', '/to-v6']) {
      const error = await failure(fetchOnce(p, `${s.origin}${path}`))
      expect(error.failureClass).toBe('refused')
      expect(error.message).toContain('allowPrivateHosts')
    }
    expect(other.hits).toEqual([])
  })

  it('refuses loopback and private targets, other schemes and credentials by default', async () => {
    const s = await site({ '/': page('<p>hi</p>') })
    const strict = new HttpFetchProvider()
    for (const url of [
      `${s.origin}/`,
      `http://localhost:${s.port}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
    ])
      expect((await failure(fetchOnce(strict, url))).failureClass).toBe('refused')
    expect((await failure(fetchOnce(strict, 'file:///etc/passwd'))).message).toContain('only http and https')
    expect((await failure(fetchOnce(strict, 'https://user:pw@example.com/'))).failureClass).toBe('refused')
    expect(s.hits).toEqual([])
    // `*` allows every private address.
    expect(
      (await fetchOnce(new HttpFetchProvider({ allowPrivateHosts: ['*'] }), `${s.origin}/`)).markdown,
    ).toBe('hi')
  })

  it('cuts a 50 MB page at the size limit and stops reading', async () => {
    const total = 50 * 1024 * 1024
    let written = 0
    const s = await site({
      '/huge': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' })
        const chunk = Buffer.from(`<p>${'word '.repeat(2000)}</p>\n`)
        const pump = () => {
          while (written < total) {
            written += chunk.length
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        res.on('close', () => (written = Math.min(written, total)))
        pump()
      },
    })
    const limit = 1024 * 1024
    const result = await fetchOnce(provider(s, { maxBytes: limit }), `${s.origin}/huge`)
    expect(result.truncated).toBe(true)
    expect(result.markdown.length).toBeGreaterThan(limit * 0.9)
    expect(result.markdown.length).toBeLessThanOrEqual(limit)
    expect(written).toBeLessThan(total / 2)
  })

  it('fails a slow page at the deadline', async () => {
    const s = await site({
      '/slow': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' })
        res.write('<p>first bytes')
        // Never finishes: the fetch deadline must end it.
      },
    })
    const started = Date.now()
    const error = await failure(fetchOnce(provider(s, { timeoutMs: 300 }), `${s.origin}/slow`))
    expect(error.failureClass).toBe('timeout')
    expect(error.message).toContain('300 ms')
    // The page never ends: only the deadline stops it (room for a busy machine).
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it('classifies failing statuses and keeps Retry-After', async () => {
    const s = await site({
      '/forbidden': page('no', 'text/plain', 403),
      '/busy': (_req, res) => {
        res.writeHead(429, { 'Retry-After': '7' })
        res.end()
      },
      '/boom': page('x', 'text/plain', 500),
      '/image': page(Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png'),
    })
    const p = provider(s)
    expect((await failure(fetchOnce(p, `${s.origin}/missing`))).failureClass).toBe('not-found')
    expect((await failure(fetchOnce(p, `${s.origin}/forbidden`))).failureClass).toBe('blocked')
    const busy = await failure(fetchOnce(p, `${s.origin}/busy`))
    expect([busy.failureClass, busy.retryAfterSeconds, busy.status]).toEqual(['rate-limit', 7, 429])
    expect((await failure(fetchOnce(p, `${s.origin}/boom`))).failureClass).toBe('server')
    expect((await failure(fetchOnce(p, `${s.origin}/image`))).failureClass).toBe('unsupported')
  })

  it('decompresses gzip bodies and passes plain text through', async () => {
    const s = await site({
      '/gz': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' })
        res.end(gzipSync('<h2>Zipped</h2>'))
      },
      '/data.json': page('{"a": 1}', 'application/json'),
    })
    const p = provider(s)
    expect((await fetchOnce(p, `${s.origin}/gz`)).markdown).toBe('## Zipped')
    expect((await fetchOnce(p, `${s.origin}/data.json`)).markdown).toBe('{"a": 1}')
  })
})

describe('pages slow to convert', () => {
  it('stops converting at an element nested deeper than MAX_NESTING, keeping what came before', async () => {
    // 200,000 nested <div>s: htmlparser2's open-element list made this take tens of seconds.
    const depth = 200_000
    const html = `<title>Deep</title><p>before the nesting</p>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}<p>after</p>`
    const s = await site({ '/deep': page(html) })
    const result = await fetchOnce(provider(s), `${s.origin}/deep`)
    expect(result.title).toBe('Deep')
    expect(result.markdown).toContain('before the nesting')
    expect(result.markdown).toContain(
      `[dsh stopped converting here: the page nests elements more than ${MAX_NESTING} deep]`,
    )
    expect(result.markdown).not.toContain('after')
  })

  it('keeps a page nested just under the limit whole', async () => {
    const depth = MAX_NESTING - 10
    const html = `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}<p>after</p>`
    const converted = htmlToMarkdown(`<html><body>${html}</body></html>`)
    expect(converted.markdown).toContain('deep')
    expect(converted.markdown).toContain('after')
    expect(converted.markdown).not.toContain('dsh stopped converting')
  })

  it('converts in slices that a cancel stops between them', async () => {
    const html = `<p>${'word '.repeat(400_000)}</p>`.repeat(4)
    const controller = new AbortController()
    const converting = convertHtml(html, 'http://example.test/', controller.signal)
    controller.abort()
    await expect(converting).rejects.toMatchObject({ name: 'AbortError' })
    // Not aborted, the same page converts whole.
    const whole = await convertHtml(html, 'http://example.test/', new AbortController().signal)
    expect(whole.markdown.length).toBeGreaterThan(4 * 400_000 * 4)
  })
})
