// Types of the web seam: what a search or fetch provider answers, and what each call cost.
// Providers turn a request into one of these values or throw a WebError (errors.ts).

/** One search hit as the model sees it (title, URL, summary) plus what the provider knows. */
export interface WebSearchHit {
  title: string
  url: string
  /** The provider's summary of the page (DeepSeek: `summary`, else `snippet`). */
  summary: string
  siteName?: string
  /** Publication date as the provider gives it (ISO 8601 for DeepSeek). */
  date?: string
  /** Relevance 0..3 (DeepSeek `rerank_score`). */
  score?: number
}

export interface WebSearchRequest {
  query: string
  /** How many results to ask for (DeepSeek: 1..50, default 10). */
  count?: number
  /** Restrict to these sites (sent as `site:` operators). */
  domains?: string[]
  /** Leave out these sites (sent as `-site:` operators). */
  excludeDomains?: string[]
  /** Language codes (sent as `lang:`). */
  languages?: string[]
  /** Only pages published after / before this date (YYYY-MM-DD, sent as `after:` / `before:`). */
  after?: string
  before?: string
  signal: AbortSignal
}

export interface WebSearchResult {
  hits: WebSearchHit[]
  /** What this request cost in USD (0 when the provider does not bill it). */
  costUsd: number
}

export interface WebFetchRequest {
  url: string
  signal: AbortSignal
  /**
   * Asked before a redirect is followed (`to`, absolute): a refusal (why) stops the fetch.
   * The caller's permission rules judge each host a fetch reaches, not only the first.
   */
  checkRedirect?: (to: string) => string | undefined
}

export interface WebFetchResult {
  /** The URL the content came from, after redirects. */
  url: string
  title: string
  /** The page as Markdown (or plain text for non-HTML bodies). */
  markdown: string
  /** True when the body was cut at the provider's size limit. */
  truncated: boolean
  costUsd: number
}

/** A search backend. Rejects with a WebError; never returns partial garbage. */
export interface WebSearchProvider {
  /** A stable name shown in results and config (`deepseek`). */
  readonly name: string
  search(request: WebSearchRequest): Promise<WebSearchResult>
}

/** A fetch backend. Rejects with a WebError. */
export interface WebFetchProvider {
  readonly name: string
  fetch(request: WebFetchRequest): Promise<WebFetchResult>
}
