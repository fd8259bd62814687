// Access control of `dsh web` over plain HTTP: a shell without secrets, the token as a bearer
// header (or `?token=` on reads), no cookie, the origin check, the security headers.

import { mkdirSync, writeFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkAccess } from '../../../src/apps/web/auth.js'
import { TOKEN_COOKIE } from '../../../src/apps/web/index.js'
import { fingerprintProjectConfig } from '../../../src/trust/index.js'
import { bearer, useWebServers } from './web-fixture.js'

const start = useWebServers()

describe('dsh web access', () => {
  it('serves the page shell and assets without the token, and they hold no secret', async () => {
    const { server } = await start()
    for (const path of ['/', '/index.html', '/app.js', '/app.css']) {
      const response = await fetch(`${server.origin}${path}`)
      expect(response.status, path).toBe(200)
      const body = await response.text()
      expect(body, path).not.toContain(server.secrets.token)
      expect(body, path).not.toContain('dsh-csrf')
    }
    expect((await fetch(`${server.origin}/favicon.ico`)).status).toBe(204)
    const page = await fetch(`${server.origin}/`)
    expect(await page.text()).not.toMatch(/<script>[^<]/) // no inline script, only the bundle
    // A cookie an older dsh web left in the browser is cleared, never set.
    expect(page.headers.get('set-cookie')).toBe(
      `${TOKEN_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`,
    )
  })

  it('answers 401 to every API request without the token; a cookie is no credential', async () => {
    const { server } = await start()
    for (const path of ['/api/sessions', '/api/models', '/api/live', '/api/sessions/x/images/00']) {
      for (const headers of [{}, { cookie: `${TOKEN_COOKIE}=${server.secrets.token}` }] as Record<
        string,
        string
      >[]) {
        const response = await fetch(`${server.origin}${path}`, { headers })
        expect(response.status, path).toBe(401)
        expect(await response.json()).toEqual({
          error: 'unauthorized: open the URL `dsh web` printed (it carries the access token)',
        })
      }
    }
    const wrong = await fetch(`${server.origin}/api/sessions?token=not-the-token`)
    expect(wrong.status).toBe(401)
  })

  it('prints the token in the fragment; an old ?token= URL is sent there without a cookie', async () => {
    const { server } = await start()
    expect(server.url).toBe(`${server.origin}/#token=${server.secrets.token}`)
    const old = await fetch(`${server.origin}/?token=${server.secrets.token}`, { redirect: 'manual' })
    expect(old.status).toBe(303)
    expect(old.headers.get('location')).toBe(`/#token=${server.secrets.token}`)
    expect(old.headers.get('set-cookie')).toBeNull()
    const other = await fetch(`${server.origin}/app.js?x=1&token=abc`, { redirect: 'manual' })
    expect(other.headers.get('location')).toBe('/app.js?x=1#token=abc')
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
    for (const malformed of [
      token,
      `Basic ${token}`,
      `Bearer  ${token}`,
      `bearer${token}`,
      `Digest ${token}`,
      `Bearer:${token}`,
    ]) {
      const response = await fetch(`${server.origin}/api/sessions`, { headers: { authorization: malformed } })
      expect(response.status, malformed).toBe(401)
    }
    const good = await fetch(`${server.origin}/api/sessions`, { headers: bearer(server) })
    expect(good.status).toBe(200)
    // Only a live stream may carry it as ?token= (an EventSource cannot send headers): any
    // other URL with the token could end up in history, a new tab or a log.
    const query = await fetch(`${server.origin}/api/sessions?token=${encodeURIComponent(token)}`)
    expect(query.status).toBe(401)
    expect(await query.json()).toEqual({
      error:
        'unauthorized: only a live stream may carry the token in its URL; send it as an Authorization header',
    })
    const stream = new AbortController()
    const live = await fetch(`${server.origin}/api/live?token=${encodeURIComponent(token)}`, {
      signal: stream.signal,
    })
    expect(live.status).toBe(200)
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/)
    stream.abort()
    const notLive = await fetch(`${server.origin}/api/sessions/x/live-ish?token=${encodeURIComponent(token)}`)
    expect(notLive.status).toBe(401)
  })

  it('pins every security header, the whole content security policy included', async () => {
    const { server } = await start()
    const page = await fetch(`${server.origin}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    )
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    expect(page.headers.get('cache-control')).toBe('no-store')
    // A refusal carries them too.
    const refused = await fetch(`${server.origin}/api/sessions`)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'))
  })

  it('refuses a mutation that carries the token only as ?token=, or from a foreign origin', async () => {
    const { server, test } = await start()
    const body = JSON.stringify({ cwd: test.home })
    const json = { 'content-type': 'application/json' }
    const query = await fetch(`${server.origin}/api/sessions?token=${server.secrets.token}`, {
      method: 'POST',
      headers: { ...json, origin: server.origin },
      body,
    })
    expect(query.status).toBe(403)
    expect(await query.json()).toEqual({ error: 'a mutation must send the token as an Authorization header' })
    const cookie = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: { ...json, cookie: `${TOKEN_COOKIE}=${server.secrets.token}` },
      body,
    })
    expect(cookie.status).toBe(401)
    for (const origin of [
      'http://evil.example',
      server.origin.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`),
    ]) {
      const foreign = await fetch(`${server.origin}/api/sessions`, {
        method: 'POST',
        headers: { ...json, ...bearer(server), origin },
        body,
      })
      expect(foreign.status, origin).toBe(403)
      expect(await foreign.json()).toEqual({ error: 'cross-origin request' })
    }
    expect(await test.harness.sessions.listStored()).toEqual([])
    // The front end's own POST: the header, its own Origin.
    const good = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: { ...json, ...bearer(server), origin: server.origin },
      body,
    })
    expect(good.status).toBe(201)
    const { id } = (await good.json()) as { id: string }
    expect(id).toMatch(/^web-session-/)
    expect(test.harness.agents.get(id)?.cwd).toBe(test.home)
  })

  it('names the credential that matched', () => {
    // Protects the contract the server relies on: only a bearer header may mutate.
    const secrets = { token: 'tok' }
    const access = (headers: Record<string, string>, url = 'http://h/api/x') =>
      checkAccess({ headers } as unknown as IncomingMessage, new URL(url), secrets)
    expect(access({ cookie: `${TOKEN_COOKIE}=tok` })).toBe('none')
    expect(access({}, 'http://h/api/x?token=tok')).toBe('query')
    expect(access({ authorization: 'Bearer tok' })).toBe('bearer')
    expect(access({ authorization: 'Bearer no' })).toBe('none')
  })

  it('serves only the built front end and the API: no path reaches other files', async () => {
    const { server } = await start()
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/index.ts',
      '/api/../../etc/passwd',
      '/etc/passwd',
    ]) {
      const response = await fetch(`${server.origin}${path}`, { headers: bearer(server) })
      expect(response.status, path).toBe(404)
    }
    const unknown = await fetch(`${server.origin}/api/sessions/no-such-session`, { headers: bearer(server) })
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

  it('answers a project-trust question only with the bearer header, and fails open questions closed on close', async () => {
    const { server, test } = await start()
    const trust = test.harness.ctx.get('projectTrust')!
    const folder = join(test.home, 'project')
    const decision = trust.decide(folder, ['1 Claude Code hook'])
    await expect.poll(() => server.host.trust.pending().length).toBe(1)
    const [question] = server.host.trust.pending()
    expect(question).toMatchObject({ folder, brings: ['1 Claude Code hook'] })
    expect((await fetch(`${server.origin}/api/live`)).status).toBe(401)
    const answer = (headers: Record<string, string>, query = '') =>
      fetch(`${server.origin}/api/trust/${question!.id}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ trust: true }),
      })
    expect((await answer({ cookie: `${TOKEN_COOKIE}=${server.secrets.token}` })).status).toBe(401)
    expect((await answer({}, `?token=${server.secrets.token}`)).status).toBe(403)
    expect(server.host.trust.pending()).toHaveLength(1)
    expect((await answer(bearer(server))).status).toBe(200)
    expect(await decision).toEqual({ trusted: true, reason: 'accepted' })
    expect((await answer(bearer(server))).status).toBe(404)

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
        ...bearer(server),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ trust: false }),
    })
    expect(answered.status).toBe(200)
    expect(await decision).toEqual({ trusted: false, reason: 'declined', changed: ['.mcp.json'] })
  })
})
