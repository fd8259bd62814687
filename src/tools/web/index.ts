// Public surface of the web tools: `web_search` and `web_fetch`, the provider seam, and
// the plain-HTTP and DeepSeek providers.

export {
  DEFAULT_DEEPSEEK_FETCH_PRICE_USD,
  DEFAULT_DEEPSEEK_SEARCH_PRICE_USD,
  FETCH_PATH,
  SEARCH_PATH,
} from '../../llm/deepseek/web-tools-wire.js'
export type { DeepSeekToolsOptions } from './deepseek/client.js'
export { DeepSeekToolsClient } from './deepseek/client.js'
export { DeepSeekFetchProvider, DeepSeekSearchProvider, searchQuery } from './deepseek/deepseek-providers.js'
export type { WebFailureClass } from './errors.js'
export {
  classifyServiceStatus,
  classifySiteStatus,
  isWebError,
  PAGE_FAILURE_CLASSES,
  WebError,
  WebErrorCode,
} from './errors.js'
export { isPublicAddress } from './http/address-guard.js'
export type { HttpFetchOptions } from './http/http-fetch-provider.js'
export {
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_MAX_REDIRECTS,
  DEFAULT_FETCH_TIMEOUT_MS,
  HttpFetchProvider,
} from './http/http-fetch-provider.js'
export { WEB_FETCH_TOOL_DESCRIPTION, WEB_SEARCH_TOOL_DESCRIPTION } from './prompt.js'
export type { WebModelEndpoint } from './select.js'
export { DEEPSEEK_API_HOST, isDeepSeekEndpoint, selectWebProviders } from './select.js'
export type {
  WebFetchProvider,
  WebFetchRequest,
  WebFetchResult,
  WebSearchHit,
  WebSearchProvider,
  WebSearchRequest,
  WebSearchResult,
} from './types.js'
export type { WebToolsConfig } from './web-tools.js'
export { DEFAULT_PAGE_WINDOW_CHARS, WebToolsPlugin } from './web-tools.js'
