// WebFetch(domain:…) rules judge the host a fetch reaches, however the URL spells it: a
// trailing dot (`example.com.`), upper case, userinfo, percent-encoding, IDNA, IPv4 number
// forms and IPv6 brackets, on the rule's side as well as the URL's, for deny and allow alike.

import { describe, expect, it } from 'vitest'
import { WebToolsStandIn } from '../../src/llm/index.js'
import {
  decideToolPermission,
  matchesRule,
  type PermissionRuleSet,
  parsePermissionRule,
  parsePermissionRules,
} from '../../src/permissions/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-webfetch-rules-')

const cwd = '/work/project'
const fetchOf = (url: string) => ({ tool: 'WebFetch', input: { url }, cwd })
const matches = (rule: string, url: string) => matchesRule(parsePermissionRule(rule), fetchOf(url), 'any')

describe('WebFetch domain rules', () => {
  it.each([
    'http://example.com./',
    'https://EXAMPLE.com/x',
    'https://Example.COM./x',
    'http://user@example.com/',
    'http://user:pw@example.com./',
    'http://ex%61mple.com/',
    'http://example.com:8080/',
    'http://ＥＸＡＭＰＬＥ.com/',
  ])('domain:example.com names %s', (url) => {
    expect(matches('WebFetch(domain:example.com)', url)).toBe(true)
  })

  it.each([
    ['domain:EXAMPLE.com', 'https://example.com/'],
    ['domain:example.com.', 'https://example.com/'],
    ['domain:*.example.com', 'https://docs.example.com./'],
    ['domain:*.EXAMPLE.com.', 'https://a.b.example.com/'],
    ['domain:localhost', 'http://localhost.:8080/models'],
    ['domain:bücher.de', 'https://xn--bcher-kva.de/'],
    ['domain:xn--bcher-kva.de', 'https://bücher.de/'],
    ['domain:127.0.0.1', 'http://2130706433/'],
    ['domain:127.0.0.1', 'http://127.0.0.1./'],
    ['domain:[::1]', 'http://[::1]:3000/'],
    ['domain:::1', 'http://[0:0:0:0:0:0:0:1]/'],
  ])('%s names %s', (specifier, url) => {
    expect(matches(`WebFetch(${specifier})`, url)).toBe(true)
  })

  it.each([
    ['domain:example.com', 'http://example.com@evil.com/'],
    ['domain:example.com', 'http://evil.com/?example.com'],
    ['domain:example.com', 'http://example.com.evil.com/'],
    ['domain:example.com', 'http://notexample.com/'],
    ['domain:*.example.com', 'http://example.com/'],
    ['domain:*.example.com', 'http://badexample.com./'],
  ])('%s does not name %s', (specifier, url) => {
    expect(matches(`WebFetch(${specifier})`, url)).toBe(false)
  })

  it('deny and allow judge a spelling alike', () => {
    const rules = (set: Partial<PermissionRuleSet>): PermissionRuleSet => ({
      deny: [],
      ask: [],
      allow: [],
      ...set,
    })
    const decide = (set: PermissionRuleSet, url: string) =>
      decideToolPermission({ mode: 'default', rules: set, subject: fetchOf(url), projectRoot: cwd }).behavior
    const deny = rules({ deny: parsePermissionRules(['WebFetch(domain:example.com)']) })
    const allow = rules({ allow: parsePermissionRules(['WebFetch(domain:example.com)']) })
    for (const url of [
      'http://example.com/',
      'http://example.com./',
      'http://EXAMPLE.COM./',
      'http://x@example.com/',
    ]) {
      expect(decide(deny, url)).toBe('deny')
      expect(decide(allow, url)).toBe('allow')
    }
  })

  it('a WebFetch rule that could never match is refused when read, naming it', () => {
    expect(() => parsePermissionRule('WebFetch(example.com)')).toThrow(/WebFetch\(example\.com\).*domain:/)
    expect(() => parsePermissionRule('WebFetch(domain:)')).toThrow(/WebFetch\(domain:\)/)
    expect(() => parsePermissionRule('WebFetch(domain:exa mple.com)')).toThrow(/exa mple\.com/)
    expect(() => parsePermissionRule('WebFetch(domain:localhost:8080)')).toThrow(/localhost:8080/)
    expect(() => parsePermissionRule('WebFetch(domain:*)')).toThrow(/domain:\*/)
    expect(() => parsePermissionRule('web_fetch(https://example.com/)')).toThrow(/domain:/)
  })
})

describe('a WebFetch deny rule in a real harness', () => {
  it('a trailing-dot host is denied before anything is fetched; an allow rule lets it run unasked', async () => {
    const web = new WebToolsStandIn({
      apiKey: 'test-key',
      pages: { 'http://example.com./': { title: 'Example', content: 'example page' } },
    })
    const calls = [
      { name: 'web_fetch', arguments: { url: 'http://example.com./' } },
      { name: 'web_fetch', arguments: { url: 'http://EXAMPLE.com./' } },
    ]
    const denied = await start({
      webTools: web,
      config: { web: { fetch: 'deepseek' } },
      permissions: { disallowedTools: ['WebFetch(domain:example.com)'] },
      script: [{ toolCalls: calls }, { text: 'done' }],
    })
    const agent = await denied.harness.agents.create({ sessionId: 'deny', meta: { cwd: tempDir() } })
    await agent.prompt('fetch')
    const results = agent.session.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data as { content: string }).content)
    for (const result of results)
      expect(result).toContain('denied by the permission rule WebFetch(domain:example.com)')
    expect(web.requests).toEqual([])

    const allowed = await start({
      webTools: web,
      config: { web: { fetch: 'deepseek' } },
      permissions: { mode: 'default', allowedTools: ['WebFetch(domain:example.com)'] },
      script: [{ toolCalls: [calls[0]!] }, { text: 'done' }],
    })
    const asker = await allowed.harness.agents.create({ sessionId: 'allow', meta: { cwd: tempDir() } })
    await asker.prompt('fetch')
    const result = asker.session.events.find((event) => event.type === 'tool/result')!.data as {
      content: string
    }
    expect(result.content).toContain('example page')
    expect(web.requests).toHaveLength(1)
  })
})
