// A full turn over real HTTP: the scripted model searches (DeepSeek Search stand-in), fetches
// a result (DeepSeek Fetch stand-in), and answers citing the URL. Claude Code hooks see the
// calls as WebSearch/WebFetch with their inputs, and each billed call's cost joins the
// session's usage totals.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ScriptRequest, WebToolsStandIn } from '../../../src/llm/index.js'
import { DEFAULT_PRICE_TABLE, deriveUsage } from '../../../src/usage/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs()

const ARTICLE_URL = 'https://docs.example.org/streams/backpressure'
const PRICE = 0.001

/** The last tool message the model was sent. */
function lastToolResult(request: ScriptRequest): string {
  const message = request.messages.at(-1)!
  expect(message.role).toBe('tool')
  return (message as { content: string }).content
}

describe('web tools in a full turn', () => {
  it('searches, fetches a result and answers with its URL; hooks and costs see both calls', async () => {
    const dir = tempDir()
    const hookLog = join(dir, 'hook-input.jsonl')
    const settings = join(dir, 'settings.json')
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'WebSearch|WebFetch',
              hooks: [{ type: 'command', command: `cat >> ${hookLog}; echo >> ${hookLog}` }],
            },
          ],
        },
      }),
    )
    const stand = new WebToolsStandIn({
      apiKey: 'test-key',
      documents: [
        {
          title: 'Backpressure in streams',
          url: ARTICLE_URL,
          summary: 'Backpressure is how a readable stream slows down for a slow writable.',
        },
        { title: 'Unrelated cooking page', url: 'https://food.example.com/soup', summary: 'Soup recipes.' },
      ],
      pages: {
        [ARTICLE_URL]: {
          title: 'Backpressure | Docs',
          content: '# Backpressure\n\nWhen `write()` returns false, wait for `drain` before writing more.',
        },
      },
    })
    let urlSeenInSearch = ''
    const { harness } = await start({
      webTools: stand,
      config: {
        web: { search: 'deepseek', fetch: 'deepseek', searchPriceUsd: PRICE, fetchPriceUsd: PRICE },
        hooks: { claudeCode: [settings] },
      },
      script: [
        (request) => {
          expect(request.tools.map((tool) => tool.name)).toEqual(
            expect.arrayContaining(['web_search', 'web_fetch']),
          )
          return {
            toolCalls: [
              {
                name: 'web_search',
                arguments: { query: 'stream backpressure', count: 5, domains: ['docs.example.org'] },
              },
            ],
          }
        },
        (request) => {
          const results = lastToolResult(request)
          urlSeenInSearch = /\[1\] .*\n\s+(\S+)/.exec(results)![1]!
          return { toolCalls: [{ name: 'web_fetch', arguments: { url: urlSeenInSearch } }] }
        },
        (request) => {
          const page = lastToolResult(request)
          expect(page).toContain('wait for `drain`')
          return { text: `Wait for the drain event when write() returns false (source: ${urlSeenInSearch}).` }
        },
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'web-turn', meta: { cwd: dir } })
    const result = await agent.prompt('How does backpressure work in Node streams? Cite your source.')

    expect(result.reason).toBe('completed')
    expect(urlSeenInSearch).toBe(ARTICLE_URL)
    expect(result.text).toContain(ARTICLE_URL)

    // The wire: one search with the model's query and count, one fetch of the chosen URL.
    expect(stand.requests.map((request) => [request.endpoint, request.body, request.status])).toEqual([
      ['search', { query: 'stream backpressure site:docs.example.org', count: 5 }, 200],
      ['fetch', { url: ARTICLE_URL }, 200],
    ])

    // The log: one usage/charge per billed call, and the session's totals include them.
    const charges = agent.session.events
      .filter((event) => event.type === 'usage/charge')
      .map((event) => event.data)
    expect(charges).toEqual([
      { source: 'web_search', amount: PRICE, currency: 'USD', detail: 'tool call call_1' },
      { source: 'web_fetch', amount: PRICE, currency: 'USD', detail: 'tool call call_2' },
    ])
    expect(stand.billed).toEqual({ search: 1, fetch: 1 })
    const tokensOnly = deriveUsage(
      agent.session.events.filter((event) => event.type !== 'usage/charge'),
      DEFAULT_PRICE_TABLE,
    ).session.cost!
    const totals = deriveUsage(agent.session.events, DEFAULT_PRICE_TABLE).session
    expect(totals.cost).toBeCloseTo(tokensOnly + 2 * PRICE, 10)

    // Claude Code hooks saw WebSearch and WebFetch with their inputs.
    const inputs = readFileSync(hookLog, 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map(
        (line) =>
          JSON.parse(line) as { tool_name: string; tool_input: Record<string, unknown>; session_id: string },
      )
    expect(inputs.map((input) => [input.tool_name, input.tool_input])).toEqual([
      ['WebSearch', { query: 'stream backpressure', count: 5, allowed_domains: ['docs.example.org'] }],
      ['WebFetch', { url: ARTICLE_URL }],
    ])
    expect(inputs[0]!.session_id).toBe('web-turn')
  })
})
