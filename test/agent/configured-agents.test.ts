// Config-driven agents across two separate runs on the same root: label minting,
// resume-or-create with an exact sessionId, and resumeSessionId that must exist.

import { describe, expect, it } from 'vitest'
import { startConfiguredAgent } from '../../src/agent/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

let home: string
const startHarness = useTestHarnesses()
const tempHome = useTempDirs('dsh-configured-')

async function run(script: { text: string }[] = []) {
  const test = await startHarness({ home, script })
  const { agents, sessions } = test.harness
  return {
    test,
    start: (row: Parameters<typeof startConfiguredAgent>[2]) =>
      startConfiguredAgent(agents, (id) => sessions.exists(id), row),
  }
}

describe('config-driven agents', () => {
  it('mints a fresh id per run from the label; two runs never collide', async () => {
    home = tempHome()
    const one = await run([{ text: 'a' }])
    const a = await one.start({ id: 'reviewer' })
    expect(a.id).toMatch(/^reviewer-session-[0-9a-f-]{36}$/)
    await a.prompt('hi')
    await one.test.close()

    const two = await run([{ text: 'b' }])
    const b = await two.start({ id: 'reviewer' })
    expect(b.id).not.toBe(a.id)
    await b.prompt('hi')
    const stored = await two.test.harness.sessions.listStored()
    expect(stored.map((summary) => summary.header.id).sort()).toEqual([a.id, b.id].sort())
  })

  it('resumes an exact sessionId when stored and creates it otherwise', async () => {
    home = tempHome()
    const one = await run([{ text: 'first' }])
    const created = await one.start({ id: 'bot', sessionId: 'fixed-id' })
    expect(created.session.length).toBe(0)
    await created.prompt('remember me')
    await one.test.close()

    const two = await run([{ text: 'second' }])
    const resumed = await two.start({ id: 'bot', sessionId: 'fixed-id' })
    expect(resumed.id).toBe('fixed-id')
    expect(resumed.session.length).toBeGreaterThan(0)
    await resumed.prompt('again')
    const texts = two.test.model.requests[0]!.messages.map((message) => message.content)
    expect(texts).toContain('remember me')
  })

  it('refuses resumeSessionId for a session that is not stored, with a clear user-facing error', async () => {
    home = tempHome()
    const one = await run()
    await expect(one.start({ id: 'bot', resumeSessionId: 'nope' })).rejects.toMatchObject({
      code: 'PERSISTENCE_NOT_FOUND',
      userFacing: true,
    })
    expect(one.test.harness.agents.list()).toHaveLength(0)
    await expect(one.start({ id: 'bot', sessionId: 'a', resumeSessionId: 'b' })).rejects.toMatchObject({
      code: 'AGENT_BAD_OPTIONS',
    })
  })
})
