import { describe, expect, it } from 'vitest'
import { configSchema } from '../../../src/config/index.js'
import { isWebError, selectWebProviders } from '../../../src/tools/web/index.js'
import { page, startTestSite } from '../../support/web-site.js'

const defaults = configSchema.parse({}).web
const endpoint = (baseUrl: string, key?: string) => ({
  baseUrl,
  apiKey: () => key,
  apiKeyEnv: 'DEEPSEEK_API_KEY',
})

describe('web provider selection', () => {
  it('defaults to DeepSeek Search and Fetch on DeepSeek’s endpoint with a key', () => {
    const chosen = selectWebProviders(defaults, endpoint('https://api.deepseek.com', 'sk-x'))
    expect([chosen.search?.name, chosen.fetch.name]).toEqual(['deepseek', 'deepseek'])
    expect(chosen.windowChars).toBe(30_000)
  })

  it('falls back to plain-HTTP fetch and no search without a key or on another endpoint', () => {
    for (const chosen of [
      selectWebProviders(defaults, endpoint('https://api.deepseek.com')),
      selectWebProviders(defaults, endpoint('https://openrouter.example/api/v1', 'sk-x')),
    ]) {
      expect(chosen.search).toBeUndefined()
      expect(chosen.fetch.name).toBe('http')
    }
  })

  it('follows explicit choices', () => {
    const web = configSchema.parse({ web: { search: 'none', fetch: 'http' } }).web
    const chosen = selectWebProviders(web, endpoint('https://api.deepseek.com', 'sk-x'))
    expect([chosen.search, chosen.fetch.name]).toEqual([undefined, 'http'])
    const forced = configSchema.parse({ web: { search: 'deepseek', fetch: 'deepseek' } }).web
    const gateway = selectWebProviders(forced, endpoint('http://127.0.0.1:9999'))
    expect([gateway.search?.name, gateway.fetch.name]).toEqual(['deepseek', 'deepseek'])
  })

  it('the plain-HTTP provider it picks loads on first use and keeps the config’s address guard', async () => {
    const site = await startTestSite({ '/': page('<title>Hello</title><p>plain page</p>') })
    try {
      const allowed = configSchema.parse({ web: { http: { allowPrivateHosts: [`127.0.0.1:${site.port}`] } } })
      const chosen = selectWebProviders(allowed.web, endpoint('https://openrouter.example/api/v1', 'sk-x'))
      const signal = new AbortController().signal
      const result = await chosen.fetch.fetch({ url: `${site.origin}/`, signal })
      expect([result.title, result.markdown]).toEqual(['Hello', expect.stringContaining('plain page')])
      const strict = selectWebProviders(defaults, endpoint('https://openrouter.example/api/v1', 'sk-x'))
      const refused = await strict.fetch.fetch({ url: `${site.origin}/`, signal }).catch((error) => error)
      expect(isWebError(refused)).toBe(true)
    } finally {
      await site.close()
    }
  })

  it('rejects unknown providers and fields in the config', () => {
    expect(configSchema.safeParse({ web: { search: 'google' } }).success).toBe(false)
    expect(configSchema.safeParse({ web: { http: { maxbytes: 1 } } }).success).toBe(false)
  })
})
