// The plain-HTTP fetch provider as the web tools hold it: the real one (node:https,
// node:dns, the address guard) loads on the first fetch, so a run that fetches no page
// never pays for it at start-up (bench/cli.bench.ts).

import type { WebFetchProvider, WebFetchRequest, WebFetchResult } from '../types.js'
import type { HttpFetchOptions } from './http-fetch-provider.js'

export class DeferredHttpFetchProvider implements WebFetchProvider {
  readonly name = 'http'
  private loaded: Promise<WebFetchProvider> | undefined

  constructor(private readonly options: HttpFetchOptions) {}

  fetch(request: WebFetchRequest): Promise<WebFetchResult> {
    this.loaded ??= import('./http-fetch-provider.js').then(
      ({ HttpFetchProvider }) => new HttpFetchProvider(this.options),
    )
    return this.loaded.then((provider) => provider.fetch(request))
  }
}
