// WebFetch rules judge every host a fetch reaches: a redirect to a host a deny rule names is
// not followed (the request never reaches it), a redirect to another host that would need
// approval is not followed either, and a cached page that came from a denied host is not
// served to a caller whose rules deny it. Same-host redirects still work.

import { describe, expect, it } from 'vitest'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'
import { page, redirect, startTestSite, type TestSite } from '../support/web-site.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-webfetch-redirects-')

async function site(): Promise<TestSite> {
  return await startTestSite({
    '/away': redirect((s) => `http://localhost:${s.port}/secret`),
    '/here': redirect('/page'),
    '/page': page('<p>the same host</p>'),
    '/secret': page('<p>from localhost</p>'),
  })
}

const fetchCall = (url: string) => ({ toolCalls: [{ name: 'web_fetch', arguments: { url } }] })

function results(events: readonly { type: string; data: unknown }[]): string[] {
  return events.filter((e) => e.type === 'tool/result').map((e) => (e.data as { content: string }).content)
}

describe('web_fetch redirects and the permission rules', () => {
  it('does not follow a redirect to a host a deny rule names; follows one on the same host', async () => {
    const s = await site()
    try {
      const t = await start({
        config: {
          web: { fetch: 'http', http: { allowPrivateHosts: [`127.0.0.1:${s.port}`, `localhost:${s.port}`] } },
        },
        permissions: { disallowedTools: ['WebFetch(domain:localhost)'] },
        script: [fetchCall(`${s.origin}/away`), fetchCall(`${s.origin}/here`), { text: 'done' }],
      })
      const agent = await t.harness.agents.create({ sessionId: 'redirects', meta: { cwd: tempDir() } })
      await agent.prompt('fetch them')
      const [away, here] = results(agent.session.events)
      expect(away).toContain(`${s.origin}/away redirects to http://localhost:${s.port}/secret`)
      expect(away).toContain('WebFetch(domain:localhost)')
      expect(away).not.toContain('from localhost')
      expect(here).toContain('the same host')
      // The denied host was never asked.
      expect(s.hits).toEqual(['/away', '/here', '/page'])
    } finally {
      await s.close()
    }
  })

  it('in default mode, a redirect to another host needs its own approval; nobody can ask here', async () => {
    const s = await site()
    try {
      const t = await start({
        config: {
          web: { fetch: 'http', http: { allowPrivateHosts: [`127.0.0.1:${s.port}`, `localhost:${s.port}`] } },
        },
        permissions: { mode: 'default', allowedTools: ['WebFetch(domain:127.0.0.1)'] },
        script: [fetchCall(`${s.origin}/away`), { text: 'done' }],
      })
      const agent = await t.harness.agents.create({ sessionId: 'ask', meta: { cwd: tempDir() } })
      await agent.prompt('fetch it')
      const [away] = results(agent.session.events)
      expect(away).toContain('another host, which needs its own approval: fetch that URL directly')
      expect(s.hits).toEqual(['/away'])
    } finally {
      await s.close()
    }
  })
})
