// Access control of `dsh web` over plain HTTP: the token, the cookie, CSRF, headers.

import { mkdirSync, writeFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkAccess } from '../../../src/apps/web/auth.js'
import { CSRF_HEADER, TOKEN_COOKIE } from '../../../src/apps/web/index.js'
import { fingerprintProjectConfig } from '../../../src/trust/index.js'
import { useWebServers } from './web-fixture.js'

const start = useWebServers()

describe('dsh web access', () => {
  it('answers 401 without the token, on pages and on the API', async () => {
    const { server } = await start()
    for (const path of ['/', '/api/sessions', '/app.js', '/api/models']) {
      const response = await fetch(`${server.origin}${path}`)
      expect(response.status, path).toBe(401)
      expect(await response.text()).not.toContain('<script')
    }
    const wrong = await fetch(`${server.origin}/?token=not-the-token`, { redirect: 'manual' })
    expect(wrong.status).toBe(401)
  })

  it('turns the URL token into an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const { server } = await start()
    const first = await fetch(server.url, { redirect: 'manual' })
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/')
    const cookie = first.headers.get('set-cookie')!
    expect(cookie).toContain(`${TOKEN_COOKIE}=${server.secrets.token}`)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    const page = await fetch(`${server.origin}/`, { headers: { cookie: cookie.split(';')[0]! } })
    expect(page.status).toBe(200)
    const body = await page.text()
    expect(body).toContain(`content="${server.secrets.csrf}"`)
    expect(body).not.toMatch(/<script>[^<]/) // no inline script, only the bundle
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('accepts the token as a bearer header and refuses any other bearer value', async () => {
    const { server } = await start()
    const { token } = server.secrets
    // Same length as the token, one character off: only a real comparison tells them apart.
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
    for (const wrong of [
      'x',
      flipped,
      `${token}x`,
      token.toLowerCase() === token ? 'WRONG' : token.toLowerCase(),
    ]) {
      const response = await fetch(`${server.origin}/api/sessions`, {
        headers: { authorization: `Bearer ${wrong}` },
      })
      expect(response.status, wrong).toBe(401)
    }
    for (const malformed of [token, `Basic ${token}`, `Bearer  ${token}`, `bearer${token}`]) {
      const response = await fetch(`${server.origin}/api/sessions`, { headers: { authorization: malformed } })
      expect(response.status, malformed).toBe(401)
    }
    const good = await fetch(`${server.origin}/api/sessions`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(good.status).toBe(200)
  })

  it('pins every security header, the whole content security policy included', async () => {
    const { server } = await start()
    const page = await fetch(`${server.origin}/`, {
      headers: { cookie: `${TOKEN_COOKIE}=${server.secrets.token}` },
    })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    )
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    expect(page.headers.get('cache-control')).toBe('no-store')
    // A refusal carries them too.
    const refused = await fetch(`${server.origin}/`)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'))
  })

  it('refuses a mutation whose CSRF header holds any value but the token', async () => {
    const { server, test } = await start()
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    const { csrf } = server.secrets
    const flipped = `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`
    for (const wrong of ['', 'x', flipped, `${csrf}x`, server.secrets.token]) {
      const response = await fetch(`${server.origin}/api/sessions`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', [CSRF_HEADER]: wrong },
        body: JSON.stringify({ cwd: test.home }),
      })
      expect(response.status, JSON.stringify(wrong)).toBe(403)
      expect(await response.json()).toEqual({ error: 'missing or wrong CSRF header' })
    }
    expect(await test.harness.sessions.listStored()).toEqual([])
  })

  it('refuses a mutation without the CSRF header, and from a foreign origin', async () => {
    const { server, test } = await start()
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    const body = JSON.stringify({ cwd: test.home })
    const headers = { cookie, 'content-type': 'application/json' }
    const bare = await fetch(`${server.origin}/api/sessions`, { method: 'POST', headers, body })
    expect(bare.status).toBe(403)
    expect(await bare.json()).toEqual({ error: 'missing or wrong CSRF header' })
    const foreign = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: { ...headers, [CSRF_HEADER]: server.secrets.csrf, origin: 'http://evil.example' },
      body,
    })
    expect(foreign.status).toBe(403)
    expect(await test.harness.sessions.listStored()).toEqual([])
    const good = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: { ...headers, [CSRF_HEADER]: server.secrets.csrf },
      body,
    })
    expect(good.status).toBe(201)
    const { id } = (await good.json()) as { id: string }
    expect(id).toMatch(/^web-session-/)
    expect(test.harness.agents.get(id)?.cwd).toBe(test.home)
  })

  it('reads the token from ?token= and from its cookie among the others a browser sends', async () => {
    // Protects the documented URL form and real browsers' Cookie headers (several cookies,
    // spaces around them): a parser taking the first cookie or keeping spaces locks users out.
    const { server } = await start()
    const { token } = server.secrets
    const first = await fetch(`${server.origin}/?token=${encodeURIComponent(token)}`, { redirect: 'manual' })
    expect(first.status).toBe(303)
    for (const cookie of [
      `theme=dark; ${TOKEN_COOKIE}=${token}`,
      `${TOKEN_COOKIE}=${token} ; lang=en`,
      `a=1;${TOKEN_COOKIE}=${token}`,
    ]) {
      const page = await fetch(`${server.origin}/`, { headers: { cookie } })
      expect(page.status, cookie).toBe(200)
    }
    for (const cookie of [`theme=${token}`, `x${TOKEN_COOKIE}=${token}`, `${TOKEN_COOKIE}x=${token}`]) {
      const page = await fetch(`${server.origin}/`, { headers: { cookie } })
      expect(page.status, cookie).toBe(401)
    }
    // Another scheme of the same length as `Bearer ` is no bearer token.
    for (const authorization of [`Digest ${token}`, `Bearer:${token}`]) {
      const response = await fetch(`${server.origin}/api/sessions`, { headers: { authorization } })
      expect(response.status, authorization).toBe(401)
    }
  })

  it('names the credential that matched', () => {
    // Protects the contract the server relies on: only a `?token=` visit gets a new cookie.
    const secrets = { token: 'tok', csrf: 'csrf' }
    const access = (headers: Record<string, string>, url = 'http://h/') =>
      checkAccess({ headers } as unknown as IncomingMessage, new URL(url), secrets)
    expect(access({ cookie: `${TOKEN_COOKIE}=tok` })).toBe('cookie')
    expect(access({}, 'http://h/?token=tok')).toBe('query')
    expect(access({ authorization: 'Bearer tok' })).toBe('bearer')
    expect(access({ authorization: 'Bearer no' })).toBe('none')
  })

  it('lets the front end mutate from its own origin, and HEAD read without the CSRF header', async () => {
    // Protects the browser front end (it sends Origin on every POST) and plain reads.
    const { server, test } = await start()
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    const sameOrigin = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        [CSRF_HEADER]: server.secrets.csrf,
        origin: server.origin,
      },
      body: JSON.stringify({ cwd: test.home }),
    })
    expect(sameOrigin.status).toBe(201)
    const foreign = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        [CSRF_HEADER]: server.secrets.csrf,
        origin: server.origin.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`),
      },
      body: JSON.stringify({ cwd: test.home }),
    })
    expect(foreign.status).toBe(403)
    expect(await foreign.json()).toEqual({ error: 'cross-origin request' })
    const head = await fetch(`${server.origin}/`, { method: 'HEAD', headers: { cookie } })
    expect(head.status).toBe(200)
  })

  it('serves only the built front end and the API: no path reaches other files', async () => {
    const { server } = await start()
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/index.ts',
      '/api/../../etc/passwd',
      '/etc/passwd',
    ]) {
      const response = await fetch(`${server.origin}${path}`, { headers: { cookie } })
      expect(response.status, path).toBe(404)
    }
    const unknown = await fetch(`${server.origin}/api/sessions/no-such-session`, { headers: { cookie } })
    expect(unknown.status).toBe(404)
  })
})

describe('dsh web approvals plugin', () => {
  it('is unloaded with the server: no tools/approve listener is left on the harness', async () => {
    const { server, test } = await start()
    const id = await server.host.create(test.home, {})
    const agent = test.harness.agents.get(id)!
    const call = {
      agent,
      turn: 1,
      callId: 'c',
      name: 'bash',
      arguments: '{}',
      input: {},
      signal: new AbortController().signal,
    }
    const asked = test.harness.ctx.serial('tools/approve', call, 'why')
    // While the server runs, the question waits for the browser.
    await expect.poll(() => server.host.state(id).approvals).toHaveLength(1)
    await server.close()
    // Closing denies what still waited (false passes the chain on; no answer denies).
    expect(await asked).not.toBe(true)
    // Gone with the server: the next question is not held for a browser, it resolves unanswered at once.
    expect(await test.harness.ctx.serial('tools/approve', call, 'why')).toBeUndefined()
    expect(server.host.state(id).approvals).toEqual([])
  })

  it('answers a project-trust question only with the CSRF header, and fails open questions closed on close', async () => {
    const { server, test } = await start()
    const trust = test.harness.ctx.get('projectTrust')!
    const folder = join(test.home, 'project')
    const decision = trust.decide(folder, ['1 Claude Code hook'])
    await expect.poll(() => server.host.trust.pending().length).toBe(1)
    const [question] = server.host.trust.pending()
    expect(question).toMatchObject({ folder, brings: ['1 Claude Code hook'] })
    expect((await fetch(`${server.origin}/api/live`)).status).toBe(401)
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    const answer = (headers: Record<string, string>, id = question!.id) =>
      fetch(`${server.origin}/api/trust/${id}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ trust: true }),
      })
    expect((await answer({})).status).toBe(403)
    expect(server.host.trust.pending()).toHaveLength(1)
    expect((await answer({ [CSRF_HEADER]: server.secrets.csrf })).status).toBe(200)
    expect(await decision).toEqual({ trusted: true, reason: 'accepted' })
    expect((await answer({ [CSRF_HEADER]: server.secrets.csrf })).status).toBe(404)

    // A question still open when the server stops fails: nothing loads, no "no" is remembered.
    const open = trust.decide(join(test.home, 'other'), ['MCP server db'])
    await expect.poll(() => server.host.trust.pending().length).toBe(1)
    await server.close()
    await expect(open).rejects.toThrow('the web server stopped')
    expect(trust.store.isTrusted(join(test.home, 'other'))).toBe(false)
  })

  it("asks again in the browser when a trusted folder's .mcp.json changed, naming the change (issue 24)", async () => {
    const { server, test } = await start()
    const trust = test.harness.ctx.get('projectTrust')!
    const folder = join(test.home, 'cloned')
    mkdirSync(folder)
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{}}')
    trust.store.trust(folder, Date.now(), fingerprintProjectConfig(folder))
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{"evil":{"command":"sh"}}}')
    const decision = trust.decide(folder, ['MCP server evil'])
    await expect.poll(() => server.host.trust.pending().length).toBe(1)
    const [question] = server.host.trust.pending()
    expect(question).toMatchObject({
      folder,
      brings: ['changed since you trusted it: .mcp.json', 'MCP server evil'],
    })
    const answered = await fetch(`${server.origin}/api/trust/${question!.id}`, {
      method: 'POST',
      headers: {
        cookie: `${TOKEN_COOKIE}=${server.secrets.token}`,
        'content-type': 'application/json',
        [CSRF_HEADER]: server.secrets.csrf,
      },
      body: JSON.stringify({ trust: false }),
    })
    expect(answered.status).toBe(200)
    expect(await decision).toEqual({ trusted: false, reason: 'declined', changed: ['.mcp.json'] })
  })
})
