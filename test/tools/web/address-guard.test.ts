// The connect-time address check of the plain-HTTP fetch: a host NAME that resolves to a
// loopback or private address (DNS rebinding) is refused when the connection is made, not
// only literal IPs and `localhost`. Names under `.rebind.test` come from a resolver stub
// (nothing real can make a public name resolve to 127.0.0.1 here); the connection itself
// is real, to a loopback server.

import type { LookupAddress } from 'node:dns'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { isWebError, type WebError } from '../../../src/tools/web/errors.js'
import {
  checkLiteralHost,
  guardedLookup,
  isPublicAddress,
  PrivateHostPolicy,
} from '../../../src/tools/web/http/address-guard.js'
import { HttpFetchProvider } from '../../../src/tools/web/http/http-fetch-provider.js'
import { page, redirect, startTestSite, type TestSite } from '../../support/web-site.js'

/** What the stub answers for each `.rebind.test` name; every other name goes to the real resolver. */
const STUB: Record<string, LookupAddress[]> = {
  'loop.rebind.test': [{ address: '127.0.0.1', family: 4 }],
  // One public answer first, then a loopback one: every address is judged, not only the first.
  'mixed.rebind.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  'private.rebind.test': [{ address: '10.1.2.3', family: 4 }],
  'public.rebind.test': [{ address: '93.184.215.14', family: 4 }],
}
/** Names the stub fails to resolve, as the resolver does for a name that does not exist. */
const UNRESOLVED = new Set(['gone.rebind.test'])

vi.mock('node:dns', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns')>()
  const lookup = (hostname: string, options: unknown, callback: unknown) => {
    const answer = STUB[hostname]
    if (UNRESOLVED.has(hostname)) {
      const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: 'ENOTFOUND',
        hostname,
      })
      return queueMicrotask(() => done(error))
    }
    if (!answer) return (real.lookup as (...args: unknown[]) => void)(hostname, options, callback)
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all
    queueMicrotask(() => (all ? done(null, answer) : done(null, answer[0]!.address, answer[0]!.family)))
  }
  return { ...real, default: { ...real, lookup }, lookup }
})

const sites: TestSite[] = []
afterEach(async () => {
  for (const site of sites.splice(0)) await site.close()
})

async function site(routes: Parameters<typeof startTestSite>[0]): Promise<TestSite> {
  const started = await startTestSite(routes)
  sites.push(started)
  return started
}

// No proxy from the environment: the direct connection is what is checked here.
const fetchWith = (allowPrivateHosts: string[], url: string) =>
  new HttpFetchProvider({ allowPrivateHosts, env: {} }).fetch({ url, signal: new AbortController().signal })

async function failure(promise: Promise<unknown>): Promise<WebError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  if (!isWebError(error)) throw new Error(`expected a WebError, got ${String(error)}`)
  return error
}

describe('address guard at connect time', () => {
  it('refuses a name that resolves to a loopback or private address, and reaches nothing', async () => {
    const s = await site({ '/secret': page('<p>internal admin page</p>') })
    for (const host of ['loop.rebind.test', 'mixed.rebind.test', 'private.rebind.test']) {
      const error = await failure(fetchWith([], `http://${host}:${s.port}/secret`))
      expect(error.failureClass, host).toBe('refused')
      expect(error.message).toContain('allowPrivateHosts')
    }
    expect(s.hits).toEqual([])
    // The stub is what the fetch resolves with: allowed, the same name reaches the loopback server.
    const allowed = await fetchWith(
      [`loop.rebind.test:${s.port}`],
      `http://loop.rebind.test:${s.port}/secret`,
    )
    expect(allowed.markdown).toBe('internal admin page')
  })

  it('refuses a redirect to a name that resolves to loopback', async () => {
    const other = await site({ '/secret': page('<p>internal admin page</p>') })
    const s = await site({ '/hop': redirect(`http://loop.rebind.test:${other.port}/secret`) })
    const error = await failure(fetchWith([`127.0.0.1:${s.port}`], `${s.origin}/hop`))
    expect(error.failureClass).toBe('refused')
    expect(other.hits).toEqual([])
  })

  it('guardedLookup judges every resolved address and answers in the form asked for', async () => {
    const ask = (host: string, all: boolean, allowed: string[] = []) =>
      new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
        const lookup = guardedLookup(new URL(`http://${host}/`), new PrivateHostPolicy(allowed))
        lookup(host, { all }, (error: Error | null, address: unknown, family?: number) =>
          resolve({ error, address, ...(family !== undefined ? { family } : {}) }),
        )
      })
    expect((await ask('loop.rebind.test', false)).error?.message).toMatch(
      /refused to fetch loop\.rebind\.test.*127\.0\.0\.1/,
    )
    expect((await ask('mixed.rebind.test', true)).error?.message).toContain('127.0.0.1')
    expect(await ask('public.rebind.test', false)).toEqual({
      error: null,
      address: '93.184.215.14',
      family: 4,
    })
    expect(await ask('public.rebind.test', true)).toEqual({
      error: null,
      address: [{ address: '93.184.215.14', family: 4 }],
    })
    expect((await ask('loop.rebind.test', false, ['loop.rebind.test'])).address).toBe('127.0.0.1')
    // A name that does not resolve fails with the resolver's own error, not a refusal.
    const gone = (await ask('gone.rebind.test', false)).error
    expect(gone).toMatchObject({ code: 'ENOTFOUND', hostname: 'gone.rebind.test' })
    expect(isWebError(gone)).toBe(false)
  })

  it('a fetch of a name that does not resolve fails as a network error and reaches nothing', async () => {
    const s = await site({ '/secret': page('<p>internal admin page</p>') })
    const error = await failure(fetchWith([], `http://gone.rebind.test:${s.port}/secret`))
    expect(error.failureClass).not.toBe('refused')
    expect(error.message).toContain('gone.rebind.test')
    expect(s.hits).toEqual([])
  })
})

describe('address guard before connecting: literal hosts and allowed private hosts', () => {
  // Protects what a proxy cannot check for us (it resolves names itself): literal private
  // IPs and localhost names are refused up front, and an allowPrivateHosts entry opens
  // exactly the host and port it names.
  const refuses = (url: string, allowed: string[] = []) => {
    try {
      checkLiteralHost(new URL(url), new PrivateHostPolicy(allowed))
      return false
    } catch (error) {
      expect(isWebError(error), url).toBe(true)
      return true
    }
  }

  it('refuses loopback and private literal addresses and localhost names, nothing else', () => {
    for (const url of [
      'http://localhost/',
      'http://LOCALHOST./',
      'http://app.localhost:3000/',
      'http://127.0.0.1/',
      'http://10.1.2.3/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[fe80::1]/',
    ]) {
      expect(refuses(url), url).toBe(true)
    }
    for (const url of [
      'http://93.184.215.14/',
      'http://[2606:4700::1111]/',
      'http://localhost.example/',
      'http://mylocalhost/',
      'https://example.com/',
    ]) {
      expect(refuses(url), url).toBe(false)
    }
  })

  it('says why a host was refused and how to allow it', () => {
    const reason = (url: string) => {
      try {
        checkLiteralHost(new URL(url), new PrivateHostPolicy([]))
      } catch (error) {
        return (error as Error).message
      }
      return 'not refused'
    }
    expect(reason('http://app.localhost:3000/')).toBe(
      'refused to fetch app.localhost: it is a private, loopback or otherwise non-public address (a loopback name); allow it with web.http.allowPrivateHosts',
    )
    expect(reason('http://[::1]/')).toBe(
      'refused to fetch [::1]: it is a private, loopback or otherwise non-public address (::1); allow it with web.http.allowPrivateHosts',
    )
  })

  it('judges IPv4-mapped IPv6 as IPv4 and a non-address as not public', () => {
    expect(isPublicAddress('93.184.215.14')).toBe(true)
    expect(isPublicAddress('::ffff:93.184.215.14')).toBe(true)
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false)
    expect(isPublicAddress('not-an-address')).toBe(false)
  })

  it('opens an allowed host on the port named, the scheme default when none is given', () => {
    expect(refuses('https://localhost/', ['localhost:443'])).toBe(false)
    expect(refuses('https://localhost:443/', ['localhost:443'])).toBe(false)
    expect(refuses('http://localhost/', ['localhost:443'])).toBe(true)
    expect(refuses('http://localhost/', ['localhost:80'])).toBe(false)
    expect(refuses('https://localhost/', ['localhost:80'])).toBe(true)
    expect(refuses('http://localhost:8080/', ['LocalHost'])).toBe(false)
    expect(refuses('http://[::1]:8080/', ['[::1]:8080'])).toBe(false)
    expect(refuses('http://[::1]:8081/', ['[::1]:8080'])).toBe(true)
    expect(refuses('http://10.0.0.1/', ['*'])).toBe(false)
    expect(refuses('http://10.0.0.1/', ['10.0.0.2'])).toBe(true)
  })
})
