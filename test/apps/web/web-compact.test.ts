// `POST /api/sessions/:id/compact` over plain HTTP: guarded like every mutation (the
// token as a bearer header, same origin), a PreCompact block and an empty session refused in one line
// with the log unchanged, and the context fill the session state carries.

import { describe, expect, it } from 'vitest'
import type { SessionResponse } from '../../../src/apps/web/types.js'
import { formatContextUsage } from '../../../src/context/index.js'
import { isSummaryRequest, workScript } from '../../support/compaction-script.js'
import { bearer, useWebServers } from './web-fixture.js'

const start = useWebServers()

const WINDOW = 16_000

function compactions(events: readonly { type: string }[]): number {
  return events.filter((event) => event.type === 'context/compacted').length
}

describe('dsh web compact endpoint', () => {
  it('refuses a request without the bearer token or from a foreign origin; the right one compacts', async () => {
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
    const body = JSON.stringify({ instructions: 'focus on the tests' })
    const json = { 'content-type': 'application/json' }
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers, body })

    const noToken = await post(json)
    expect(noToken.status).toBe(401)
    const wrongToken = await post({ ...json, authorization: 'Bearer not-the-token' })
    expect(wrongToken.status).toBe(401)
    const queryOnly = await fetch(`${url}?token=${server.secrets.token}`, {
      method: 'POST',
      headers: json,
      body,
    })
    expect(queryOnly.status).toBe(403)
    const foreign = await post({ ...json, ...bearer(server), origin: 'http://evil.example' })
    expect(foreign.status).toBe(403)
    expect(await foreign.json()).toEqual({ error: 'cross-origin request' })
    // None of them reached the model or the log.
    expect(work.summaryRequests).toEqual([])
    expect(compactions(agent.session.events)).toBe(0)

    const good = await post({ ...json, ...bearer(server), origin: server.origin })
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
    const compact = (id: string) =>
      fetch(`${server.origin}/api/sessions/${encodeURIComponent(id)}/compact`, {
        method: 'POST',
        headers: { ...bearer(server), 'content-type': 'application/json' },
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
      headers: bearer(server),
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
