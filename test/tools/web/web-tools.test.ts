import { existsSync, readFileSync } from 'node:fs'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { ToolRegistry } from '../../../src/tools/index.js'
import { HttpFetchProvider, WebToolsPlugin } from '../../../src/tools/web/index.js'
import { page, startTestSite, type TestSite } from '../../support/web-site.js'

const sites: TestSite[] = []
afterEach(async () => {
  for (const site of sites.splice(0)) await site.close()
})

async function loadTools(config: Parameters<typeof WebToolsPlugin.apply>[1]) {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry).await()
  const fiber = ctx.plugin(WebToolsPlugin, config)
  await fiber.await()
  return { ctx, fiber, tools: ctx.get('tools')! }
}

const run = (tools: ToolRegistry, name: string, args: unknown) =>
  tools.run(name, args, { callId: 'c1', signal: new AbortController().signal })

describe('web tools', () => {
  it('offers web_fetch always and web_search only with a search provider; unloading removes them', async () => {
    const { fiber, tools } = await loadTools({ fetch: new HttpFetchProvider() })
    expect(tools.names()).toEqual(['web_fetch'])
    const fetchSchema = tools.schemas().find((schema) => schema.name === 'web_fetch')!
    expect(Object.keys((fetchSchema.parameters as { properties: object }).properties)).toEqual([
      'url',
      'offset',
    ])
    await fiber.dispose()
    expect(tools.names()).toEqual([])
  })

  it('pages a long page from one download, spills it to a file, and cleans up on unload', async () => {
    const paragraphs = Array.from({ length: 300 }, (_, i) => `<p>Paragraph ${i} ${'text '.repeat(20)}</p>`)
    const site = await startTestSite({ '/long': page(`<title>Long</title>${paragraphs.join('')}`) })
    sites.push(site)
    const { fiber, tools } = await loadTools({
      fetch: new HttpFetchProvider({ allowPrivateHosts: [`127.0.0.1:${site.port}`] }),
      windowChars: 10_000,
    })
    const first = await run(tools, 'web_fetch', { url: `${site.origin}/long` })
    expect(first.isError).toBeUndefined()
    expect(first.content).toContain(`URL: ${site.origin}/long\nTitle: Long\n`)
    const header =
      /\[characters 0-10000 of (\d+); next window: offset 10000; whole page saved to (\S+)\]/.exec(
        first.content,
      )
    expect(header).not.toBeNull()
    const spillPath = header![2]!
    expect(readFileSync(spillPath, 'utf8')).toContain('Paragraph 299')
    expect(first.content).toContain('Paragraph 0 ')
    expect(first.content).not.toContain('Paragraph 299')

    const second = await run(tools, 'web_fetch', { url: `${site.origin}/long`, offset: 10_000 })
    expect(second.content).toContain('[characters 10000-20000 of')
    expect(site.hits).toEqual(['/long'])

    await fiber.dispose()
    expect(existsSync(spillPath)).toBe(false)
  })

  it('answers a failed fetch as a one-line classified error, not a crash', async () => {
    const { tools } = await loadTools({ fetch: new HttpFetchProvider() })
    const refused = await run(tools, 'web_fetch', { url: 'http://127.0.0.1:9/' })
    expect(refused.isError).toBe(true)
    expect(refused.content).toMatch(/^web_fetch failed \(refused\): refused to fetch 127\.0\.0\.1/)
    expect(refused.content).not.toContain('\n')
    const scheme = await run(tools, 'web_fetch', { url: 'ftp://example.com/file' })
    expect(scheme.content).toContain('only http and https')
  })
})
