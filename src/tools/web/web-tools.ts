// The model-facing `web_search` and `web_fetch` tools. Which provider serves each is decided
// by whoever loads the plugin (the harness, from config); `web_search` is registered only
// when a search provider is given. Each call's cost travels on its ToolOutput.

import type { Context } from 'cordis'
import type { ToolExecution, ToolOutput } from '../../plugin-api/index.js'
import type { SpillStore } from '../../spill/index.js'
import { isWebError, WebError } from './errors.js'
import { PageCache } from './page-cache.js'
import { WEB_FETCH_TOOL_DESCRIPTION, WEB_SEARCH_TOOL_DESCRIPTION } from './prompt.js'
import { renderPageWindow, renderSearchResults, renderWebError } from './render.js'
import {
  type WebFetchArguments,
  type WebSearchArguments,
  webFetchParameters,
  webSearchParameters,
} from './schema.js'
import type { WebFetchProvider, WebFetchResult, WebSearchProvider } from './types.js'

/** Characters of a fetched page shown per call. */
export const DEFAULT_PAGE_WINDOW_CHARS = 30_000

export interface WebToolsConfig {
  fetch: WebFetchProvider
  /** Absent: no `web_search` tool is offered. */
  search?: WebSearchProvider
  windowChars?: number
}

export const WebToolsPlugin = {
  name: 'web-tools',
  inject: ['tools'],
  apply(ctx: Context, config: WebToolsConfig): void {
    const cache = new PageCache()
    const windowChars = config.windowChars ?? DEFAULT_PAGE_WINDOW_CHARS
    ctx.effect(() => () => cache.dispose(), 'web-tools: drop cached pages and their spill files')
    const search = config.search
    if (search) {
      ctx.tools.register({
        name: 'web_search',
        // Claude Code's WebSearch names its site filters allowed_domains / blocked_domains.
        hookNames: {
          claudeCode: {
            name: 'WebSearch',
            fields: { domains: 'allowed_domains', exclude_domains: 'blocked_domains' },
          },
        },
        description: WEB_SEARCH_TOOL_DESCRIPTION,
        get parameters() {
          return webSearchParameters.schema()
        },
        parametersJsonSchema: webSearchParameters.jsonSchema,
        execute: (args, execution) => runSearch(search, args, execution),
      })
    }
    ctx.tools.register({
      name: 'web_fetch',
      hookNames: { claudeCode: { name: 'WebFetch' } },
      description: WEB_FETCH_TOOL_DESCRIPTION,
      get parameters() {
        return webFetchParameters.schema()
      },
      parametersJsonSchema: webFetchParameters.jsonSchema,
      execute: (args, execution) =>
        runFetch(config.fetch, cache, windowChars, args, execution, {
          spillStore: () => ctx.get('spill'),
          redirectRefusal: (from, to) => {
            const agent = execution.agent
            return agent ? ctx.get('permissions')?.fetchRedirectRefusal(agent, from, to) : undefined
          },
        }),
    })
  },
}

async function runSearch(
  provider: WebSearchProvider,
  args: WebSearchArguments,
  execution: ToolExecution,
): Promise<ToolOutput> {
  try {
    const result = await provider.search({
      query: args.query,
      signal: execution.signal,
      ...(args.count !== undefined ? { count: args.count } : {}),
      ...(args.domains ? { domains: args.domains } : {}),
      ...(args.exclude_domains ? { excludeDomains: args.exclude_domains } : {}),
      ...(args.language ? { languages: args.language.split(',') } : {}),
      ...(args.after ? { after: args.after } : {}),
      ...(args.before ? { before: args.before } : {}),
    })
    return withCost({ content: renderSearchResults(args.query, provider.name, result.hits) }, result.costUsd)
  } catch (error) {
    if (isWebError(error)) return { content: renderWebError('web_search', error), isError: true }
    throw error
  }
}

/** What a fetch needs beyond its provider: where to spill, and the caller's rules on redirects. */
interface FetchServices {
  spillStore: () => SpillStore | undefined
  /** Why a redirect from `from` to `to` may not be followed, or undefined when it may. */
  redirectRefusal: (from: string, to: string) => string | undefined
}

async function runFetch(
  provider: WebFetchProvider,
  cache: PageCache,
  windowChars: number,
  args: WebFetchArguments,
  execution: ToolExecution,
  services: FetchServices,
): Promise<ToolOutput> {
  const offset = args.offset ?? 0
  let entry = cache.get(args.url)
  let costUsd = 0
  const checkRedirect = (to: string) => services.redirectRefusal(args.url, to)
  if (!entry) {
    try {
      const page = await provider.fetch({ url: args.url, signal: execution.signal, checkRedirect })
      costUsd = page.costUsd
      entry = cache.put(args.url, page, provider.name)
    } catch (error) {
      if (isWebError(error)) return { content: renderWebError('web_fetch', error), isError: true }
      throw error
    }
  }
  // Where the page came from after redirects: judged for every caller, also a cached page
  // and one a provider followed remotely (DeepSeek's fetch), whose hops dsh never saw.
  const landed = entry.page.url !== args.url ? checkRedirect(entry.page.url) : undefined
  if (landed !== undefined)
    return { content: renderWebError('web_fetch', new WebError('invalid', landed)), isError: true }
  const spillStore = services.spillStore
  const sessionKey = execution.agent?.id ?? ''
  if (entry.page.markdown.length > windowChars && !entry.spillPaths.has(sessionKey)) {
    const path = await spillPage(entry.page, execution, spillStore(), cache)
    if (path !== undefined) entry.spillPaths.set(sessionKey, path)
  }
  const spillPath = entry.spillPaths.get(sessionKey)
  const content = renderPageWindow({
    page: entry.page,
    provider: entry.provider,
    offset,
    windowChars,
    ...(spillPath !== undefined ? { spillPath } : {}),
  })
  return withCost({ content }, costUsd)
}

/** The whole page in the session's spill folder, else in the cache's temporary folder. */
async function spillPage(
  page: WebFetchResult,
  execution: ToolExecution,
  store: SpillStore | undefined,
  cache: PageCache,
): Promise<string | undefined> {
  if (!store || !execution.agent) return cache.spillTemporary(page)
  try {
    return await store.write(execution.agent.id, `web-${new URL(page.url).hostname}.md`, page.markdown)
  } catch {
    // No spill file (full disk): the page is still served in windows.
    return undefined
  }
}

function withCost(output: ToolOutput, costUsd: number): ToolOutput {
  return costUsd > 0 ? { ...output, costUsd } : output
}
