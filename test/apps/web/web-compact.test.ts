// `POST /api/sessions/:id/compact` over plain HTTP: guarded like every mutation (token,
// CSRF header, same origin), a PreCompact block and an empty session refused in one line
// with the log unchanged, and the context fill the session state carries.

import { describe, expect, it } from 'vitest'
import { CSRF_HEADER, TOKEN_COOKIE } from '../../../src/apps/web/index.js'
import type { SessionResponse } from '../../../src/apps/web/types.js'
import { formatContextUsage } from '../../../src/context/index.js'
import { isSummaryRequest, workScript } from '../../support/compaction-script.js'
import { useWebServers } from './web-fixture.js'

const start = useWebServers()

const WINDOW = 16_000

function compactions(events: readonly { type: string }[]): number {
  return events.filter((event) => event.type === 'context/compacted').length
}

describe('dsh web compact endpoint', () => {
  it('refuses a request without the access token, the CSRF header or from a foreign origin; the right one compacts', async () => {
    const work = workScript({ calls: 2, lines: 120 })
    const { server, test } = await start({
      script: work.script,
      config: { model: { contextWindow: WINDOW } },
      strict: { contextWindow: WINDOW },
    })
    const id = await server.host.create(test.home, {})
    const agent = test.harness.agents.get(id)!
    expect(await agent.prompt('work one')).toMatchObject({ reason: 'completed' })
    const url = `${server.origin}/api/sessions/${encodeURIComponent(id)}/compact`
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    const body = JSON.stringify({ instructions: 'focus on the tests' })
    const json = { 'content-type': 'application/json' }
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers, body })

    const noToken = await post({ ...json, [CSRF_HEADER]: server.secrets.csrf })
    expect(noToken.status).toBe(401)
    const wrongToken = await post({
      ...json,
      cookie: `${TOKEN_COOKIE}=not-the-token`,
      [CSRF_HEADER]: server.secrets.csrf,
    })
    expect(wrongToken.status).toBe(401)
    const noCsrf = await post({ ...json, cookie })
    expect(noCsrf.status).toBe(403)
    expect(await noCsrf.json()).toEqual({ error: 'missing or wrong CSRF header' })
    const wrongCsrf = await post({ ...json, cookie, [CSRF_HEADER]: 'not-the-csrf-token' })
    expect(wrongCsrf.status).toBe(403)
    const foreign = await post({
      ...json,
      cookie,
      [CSRF_HEADER]: server.secrets.csrf,
      origin: 'http://evil.example',
    })
    expect(foreign.status).toBe(403)
    expect(await foreign.json()).toEqual({ error: 'cross-origin request' })
    // None of them reached the model or the log.
    expect(work.summaryRequests).toEqual([])
    expect(compactions(agent.session.events)).toBe(0)

    const good = await post({ ...json, cookie, [CSRF_HEADER]: server.secrets.csrf, origin: server.origin })
    expect(good.status).toBe(200)
    const answer = (await good.json()) as { result: { tokensBefore: number; tokensAfter: number } }
    expect(answer.result.tokensAfter).toBeLessThan(answer.result.tokensBefore)
    expect(compactions(agent.session.events)).toBe(1)
    expect(work.summaryRequests).toHaveLength(1)
    expect(work.summaryRequests[0]!.messages.at(-1)!.content).toContain('focus on the tests')
  })

  it('answers a blocked compaction and an empty session with a one-line 409, the log unchanged', async () => {
    const work = workScript({ calls: 1, lines: 5 })
    const { server, test } = await start({ script: work.script })
    const cookie = `${TOKEN_COOKIE}=${server.secrets.token}`
    const compact = (id: string) =>
      fetch(`${server.origin}/api/sessions/${encodeURIComponent(id)}/compact`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', [CSRF_HEADER]: server.secrets.csrf },
        body: '{}',
      })
    const id = await server.host.create(test.home, {})
    const empty = await compact(id)
    expect(empty.status).toBe(409)
    expect(await empty.json()).toEqual({ error: 'there is nothing to compact yet' })

    const agent = test.harness.agents.get(id)!
    await agent.prompt('work one')
    const length = agent.session.length
    test.harness.ctx.on('context/pre-compact', (state) => {
      state.block = 'not during the review'
    })
    const blocked = await compact(id)
    expect(blocked.status).toBe(409)
    expect(await blocked.json()).toEqual({
      error: 'compaction blocked by a PreCompact hook: not during the review',
    })
    expect(agent.session.length).toBe(length)
    expect(work.requests.filter(isSummaryRequest)).toEqual([])
    // The agent is free again: the next turn runs.
    expect(server.host.state(id)).toMatchObject({ busy: false, compacting: false })
  })

  it("carries the hosted agent's context fill; without a known window, tokens and no percentage", async () => {
    const { server, test } = await start({
      script: [{ text: 'an answer' }],
      strict: { models: ['other-model'] },
      config: { model: { name: 'other-model' } },
    })
    const id = await server.host.create(test.home, {})
    await test.harness.agents.get(id)!.prompt('hello')
    const response = await fetch(`${server.origin}/api/sessions/${encodeURIComponent(id)}`, {
      headers: { cookie: `${TOKEN_COOKIE}=${server.secrets.token}` },
    })
    const { state } = (await response.json()) as SessionResponse
    expect(state.context).not.toBeNull()
    expect(state.context!.window).toBeNull()
    expect(state.context!.tokens).toBeGreaterThan(0)
    expect(formatContextUsage(state.context!)).toMatch(/^context [\d.]+k? tokens$/)

    // A stored session nobody hosts here has no fill to show.
    await server.host.release(id)
    expect(server.host.state(id).context).toBeNull()
  })
})
