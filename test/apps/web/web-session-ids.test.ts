// Short id prefixes and renaming over the web API (plain HTTP): `/api/sessions/<prefix>`
// resolves a unique prefix of 6+ characters, an ambiguous one is a 400 naming the
// candidates, and `POST /api/sessions/<id>/rename` titles hosted and stored sessions alike.

import { describe, expect, it } from 'vitest'
import type { WebServer } from '../../../src/apps/web/server.js'
import type { TestHarness } from '../../support/harness.js'
import { bearer, useWebServers } from './web-fixture.js'

const start = useWebServers()

async function stored(test: TestHarness, id: string, text: string): Promise<void> {
  const session = await test.harness.sessions.create({ id, cwd: test.home })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { text })
  session.append('turn/end', { turn: 1, reason: 'completed' })
  await test.harness.sessions.close(session)
}

function client(server: WebServer) {
  const headers = {
    'content-type': 'application/json',
    ...bearer(server),
    origin: server.origin,
  }
  return {
    get: (path: string) => fetch(`${server.origin}/api/sessions${path}`, { headers }),
    post: (path: string, body: unknown) =>
      fetch(`${server.origin}/api/sessions${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
  }
}

describe('dsh web session ids and titles', () => {
  it('resolves a unique prefix, refuses an ambiguous or short one', async () => {
    const { server, test } = await start({})
    await stored(test, 'webweb-1111', 'first')
    await stored(test, 'webweb-2222', 'second')
    const api = client(server)
    const one = await api.get('/webweb-1')
    expect(one.status).toBe(200)
    expect(await one.json()).toMatchObject({ header: { id: 'webweb-1111' } })
    const ambiguous = await api.get('/webweb')
    expect(ambiguous.status).toBe(400)
    expect(await ambiguous.json()).toEqual({
      error: 'session id prefix "webweb" is ambiguous: webweb-1111, webweb-2222 (give more characters)',
    })
    const short = await api.get('/webwe')
    expect(short.status).toBe(404)
    expect(await short.json()).toEqual({ error: 'unknown session "webwe"' })
  })

  it('renames a stored and a hosted session; the listing shows the titles; an empty title is a 400', async () => {
    const { server, test } = await start({ script: [{ text: 'hosted answer' }] })
    await stored(test, 'webtitle-stored', 'stored prompt')
    const hosted = await server.host.create(test.home, {})
    expect(await test.harness.agents.get(hosted)!.prompt('hosted prompt')).toMatchObject({
      reason: 'completed',
    })
    const api = client(server)

    expect((await api.post('/webtitle-s/rename', { title: 'Stored title' })).status).toBe(200)
    expect((await api.post(`/${encodeURIComponent(hosted)}/rename`, { title: 'Hosted title' })).status).toBe(
      200,
    )
    const empty = await api.post('/webtitle-stored/rename', { title: ' ' })
    expect(empty.status).toBe(400)
    expect(await empty.json()).toEqual({ error: 'the title is empty' })

    const { sessions } = (await (await api.get('')).json()) as { sessions: { id: string; title?: string }[] }
    const titles = Object.fromEntries(sessions.map((row) => [row.id, row.title]))
    expect(titles).toMatchObject({ 'webtitle-stored': 'Stored title', [hosted]: 'Hosted title' })
  })
})
