// "Fork from here": `POST /api/sessions/:id/fork {atTurn}` starts a session whose history
// ends after that turn (the next request holds exactly those turns), with its lineage; a bad
// turn is a 400 with one line. In Chromium, the button on a turn forks and opens the fork.

import { describe, expect, it } from 'vitest'
import { bearer, openPage, useBrowser, useWebServers } from './web-fixture.js'

const browser = useBrowser()
const start = useWebServers()

const script = Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i + 1}` }))

describe('fork from a turn in dsh web', () => {
  it('over the HTTP API: the fork holds turns 1-2 of 4 and names its parent; bad turns are 400', async () => {
    const { server, test } = await start({ script })
    const id = await server.host.create(test.home, {})
    const agent = test.harness.agents.get(id)!
    for (const prompt of ['one', 'two', 'three', 'four']) await agent.prompt(prompt)
    const fork = (body: unknown) =>
      fetch(`${server.origin}/api/sessions/${encodeURIComponent(id)}/fork`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...bearer(server),
        },
        body: JSON.stringify(body),
      })

    const created = await fork({ atTurn: 2 })
    expect(created.status).toBe(201)
    const { id: child } = (await created.json()) as { id: string }
    const forked = test.harness.agents.get(child)!
    expect(forked.session.header.parentSession).toBe(id)
    await forked.prompt('after two')
    const users = test.model.requests.at(-1)!.messages.filter((m) => m.role === 'user')
    expect(users.map((m) => m.content)).toEqual(['one', 'two', 'after two'])

    for (const [body, status] of [
      [{ atTurn: 5 }, 400],
      [{ atTurn: 0 }, 400],
      [{ atTurn: 'two' }, 400],
    ] as const) {
      const refused = await fork(body)
      expect(refused.status, JSON.stringify(body)).toBe(status)
      const { error } = (await refused.json()) as { error: string }
      expect(error.split('\n')).toHaveLength(1)
    }
    expect(await (await fork({ atTurn: 5 })).json()).toEqual({
      error: 'cannot fork at turn 5: its turns are 1 to 4',
    })
  })

  it('in Chromium: "fork from here" on turn 2 opens a new session with turns 1-2 only', async () => {
    const { server, test } = await start({ script })
    const id = await server.host.create(test.home, {})
    const agent = test.harness.agents.get(id)!
    for (const prompt of ['one', 'two', 'three', 'four']) await agent.prompt(prompt)
    const { page, errors } = await openPage(browser(), `${server.url}#/session/${encodeURIComponent(id)}`)
    const turnTwo = page.locator('.turn-end', { hasText: 'turn 2 ·' })
    await turnTwo.locator('button.fork-here').click()
    await page.waitForURL(
      (url) => url.hash.startsWith('#/session/') && !url.hash.endsWith(encodeURIComponent(id)),
    )
    const child = decodeURIComponent(new URL(page.url()).hash.slice('#/session/'.length))
    await page.locator('.session-page a.parent').waitFor()
    await page.locator('.turn-end', { hasText: 'turn 2 ·' }).waitFor()
    expect(await page.locator('.turn-end').count()).toBe(2)
    expect(test.harness.agents.get(child)?.session.header.parentSession).toBe(id)
    expect(errors).toEqual([])
  })
})
