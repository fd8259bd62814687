// The `web:` section of the config: which providers serve the web tools and their limits.
// Here, beside the tools it configures; config/schema.ts composes it into the whole config,
// built on first use (a config without `web:` takes WEB_CONFIG_DEFAULTS).

import * as z from 'zod'

/** The section's schema; each call builds it anew (config/schema.ts builds it once, lazily). */
export const webConfigSchema = () =>
  z
    .object({
      /**
       * Who serves `web_search`: `auto` = DeepSeek's Search API when the model endpoint is
       * DeepSeek's and its key is set, else no `web_search` tool; `none` never offers it.
       */
      search: z.enum(['auto', 'deepseek', 'none']).default('auto'),
      /** Who serves `web_fetch`: `auto` = DeepSeek's Fetch API under the same rule, else plain HTTP. */
      fetch: z.enum(['auto', 'deepseek', 'http']).default('auto'),
      /** USD per billed DeepSeek request (default $0.75 per 1,000). */
      searchPriceUsd: z.number().min(0).default(0.00075),
      fetchPriceUsd: z.number().min(0).default(0.00075),
      /** Characters of a fetched page shown per `web_fetch` call. */
      windowChars: z.number().int().min(1000).default(30_000),
      /** The plain-HTTP fetch provider. */
      http: z
        .object({
          maxBytes: z
            .number()
            .int()
            .positive()
            .default(10 * 1024 * 1024),
          timeoutMs: z.number().int().positive().default(30_000),
          maxRedirects: z.number().int().min(0).max(20).default(5),
          /** Private/loopback hosts it may fetch: `*`, `host` or `host:port`. Default none. */
          allowPrivateHosts: z.array(z.string().min(1)).default([]),
        })
        .strict()
        .default({ maxBytes: 10 * 1024 * 1024, timeoutMs: 30_000, maxRedirects: 5, allowPrivateHosts: [] }),
    })
    .strict()

export type WebConfig = z.infer<ReturnType<typeof webConfigSchema>>

/** What `web: {}` parses to (a test checks it against the schema). */
export const WEB_CONFIG_DEFAULTS: WebConfig = {
  search: 'auto',
  fetch: 'auto',
  searchPriceUsd: 0.00075,
  fetchPriceUsd: 0.00075,
  windowChars: 30_000,
  http: { maxBytes: 10 * 1024 * 1024, timeoutMs: 30_000, maxRedirects: 5, allowPrivateHosts: [] },
}
