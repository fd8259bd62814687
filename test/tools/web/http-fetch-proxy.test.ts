// The plain-HTTP web_fetch behind a proxy: requests go through HTTP_PROXY (a recording
// forward proxy on 127.0.0.1), hosts in NO_PROXY are reached directly through the address
// guard's lookup, and the guard still refuses private literal hosts and `localhost` before
// anything reaches the proxy.

import { lookup as dnsLookup } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundDispatcher, loadUndici } from '../../../src/net/index.js'
import { isWebError } from '../../../src/tools/web/errors.js'
import { HttpFetchProvider } from '../../../src/tools/web/http/http-fetch-provider.js'
import { type ForwardProxy, proxiedAs, startForwardProxy } from '../../support/forward-proxy.js'
import { page, startTestSite, type TestSite } from '../../support/web-site.js'

let proxy: ForwardProxy
let site: TestSite

beforeAll(async () => {
  proxy = await startForwardProxy()
  site = await startTestSite({ '/page': page('<h1>Through</h1><p>the proxy</p>') })
})
afterEach(() => {
  proxy.seen.length = 0
  site.hits.length = 0
})
afterAll(async () => {
  await proxy.close()
  await site.close()
})

/** A provider allowed to fetch the test site, reading the proxy from `env`. */
function provider(env: NodeJS.ProcessEnv): HttpFetchProvider {
  return new HttpFetchProvider({ allowPrivateHosts: [`127.0.0.1:${site.port}`], env })
}

const fetchPage = (p: HttpFetchProvider, url = `${site.origin}/page`) =>
  p.fetch({ url, signal: new AbortController().signal })

describe('plain-HTTP fetch and the proxy variables', () => {
  it('sends the request through HTTP_PROXY', async () => {
    const result = await fetchPage(provider({ HTTP_PROXY: proxy.url }))
    expect(result.markdown).toContain('# Through')
    expect(proxy.seen).toHaveLength(1)
    expect(proxiedAs(site.origin, 'GET', '/page')).toContain(proxy.seen[0])
    expect(site.hits).toEqual(['/page'])
  })

  it('reads the lower-case spelling too, and HTTPS_PROXY alone leaves http:// direct (as curl does)', async () => {
    await fetchPage(provider({ http_proxy: proxy.url }))
    expect(proxy.seen).toHaveLength(1)
    // The env given is the whole truth: an HTTP_PROXY in process.env is not mixed in.
    const saved = process.env.HTTP_PROXY
    process.env.HTTP_PROXY = proxy.url
    try {
      await fetchPage(provider({ HTTPS_PROXY: proxy.url }))
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY
      else process.env.HTTP_PROXY = saved
    }
    expect(proxy.seen).toHaveLength(1)
    expect(site.hits).toEqual(['/page', '/page'])
  })

  it('goes straight to a host in NO_PROXY, with or without its port', async () => {
    for (const noProxy of ['127.0.0.1', `127.0.0.1:${site.port}`, 'example.org, 127.0.0.1']) {
      const result = await fetchPage(provider({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy }))
      expect(result.markdown).toContain('# Through')
    }
    expect(proxy.seen).toEqual([])
    expect(site.hits).toHaveLength(3)
  })

  it('still refuses private literal hosts and localhost before anything is sent to the proxy', async () => {
    const strict = new HttpFetchProvider({ env: { HTTP_PROXY: proxy.url } })
    for (const url of [
      `${site.origin}/page`,
      `http://localhost:${site.port}/page`,
      `http://app.localhost:${site.port}/page`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const error = await fetchPage(strict, url).then(
        () => undefined,
        (reason: unknown) => reason,
      )
      expect(isWebError(error) && error.failureClass, url).toBe('refused')
    }
    expect(proxy.seen).toEqual([])
    expect(site.hits).toEqual([])
  })
})

describe('the outbound dispatcher', () => {
  /** A lookup that records the names it resolves. */
  function recordingLookup(names: string[]): LookupFunction {
    return (hostname, options, callback) => {
      names.push(hostname)
      dnsLookup(hostname, options, callback as never)
    }
  }

  async function get(url: string, env: NodeJS.ProcessEnv, names: string[]): Promise<number> {
    const { request } = await loadUndici()
    const dispatcher = await createOutboundDispatcher(env, { lookup: recordingLookup(names) })
    try {
      const answer = await request(url, { dispatcher })
      await answer.body.text()
      return answer.statusCode
    } finally {
      await dispatcher.close()
    }
  }

  it('runs the direct lookup for NO_PROXY hosts and with no proxy, never for the proxy itself', async () => {
    const url = `http://localhost:${site.port}/page`
    const names: string[] = []
    expect(await get(url, { HTTP_PROXY: proxy.url, NO_PROXY: 'localhost' }, names)).toBe(200)
    expect(names).toEqual(['localhost'])
    expect(proxy.seen).toEqual([])
    expect(await get(url, {}, names)).toBe(200)
    expect(names).toEqual(['localhost', 'localhost'])
    // Through the proxy the proxy resolves the name: the lookup is not asked, not even for the proxy.
    expect(await get(url, { HTTP_PROXY: proxy.url.replace('127.0.0.1', 'localhost') }, names)).toBe(200)
    expect(names).toEqual(['localhost', 'localhost'])
    expect(proxy.seen).toHaveLength(1)
  })
})
