// Which provider serves each web tool, from the `web` config: DeepSeek's APIs when asked
// for, or by default when the model endpoint is DeepSeek's own and its key is set; else the
// plain-HTTP fetch and no search.

import type { WebConfig } from './config.js'
import { DeepSeekToolsClient } from './deepseek/client.js'
import { DeepSeekFetchProvider, DeepSeekSearchProvider } from './deepseek/deepseek-providers.js'
import { DeferredHttpFetchProvider } from './http/deferred-provider.js'
import type { WebToolsConfig } from './web-tools.js'

/** The host of DeepSeek's own API. */
export const DEEPSEEK_API_HOST = 'api.deepseek.com'

export interface WebModelEndpoint {
  /** The model's resolved base URL. */
  baseUrl: string
  /** The model's API key at call time. */
  apiKey: () => string | undefined
  apiKeyEnv: string
}

export function selectWebProviders(web: WebConfig, model: WebModelEndpoint): WebToolsConfig {
  const onDeepSeek = isDeepSeekEndpoint(model.baseUrl) && model.apiKey() !== undefined
  const client = new DeepSeekToolsClient({
    baseUrl: model.baseUrl,
    apiKey: model.apiKey,
    apiKeyEnv: model.apiKeyEnv,
  })
  const useSearch = web.search === 'deepseek' || (web.search === 'auto' && onDeepSeek)
  const useDeepSeekFetch = web.fetch === 'deepseek' || (web.fetch === 'auto' && onDeepSeek)
  return {
    fetch: useDeepSeekFetch
      ? new DeepSeekFetchProvider(client, web.fetchPriceUsd)
      : new DeferredHttpFetchProvider({
          maxBytes: web.http.maxBytes,
          timeoutMs: web.http.timeoutMs,
          maxRedirects: web.http.maxRedirects,
          allowPrivateHosts: web.http.allowPrivateHosts,
        }),
    ...(useSearch ? { search: new DeepSeekSearchProvider(client, web.searchPriceUsd) } : {}),
    windowChars: web.windowChars,
  }
}

export function isDeepSeekEndpoint(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === DEEPSEEK_API_HOST
  } catch {
    // Not a URL: the adapter reports it on its first request.
    return false
  }
}
