// The URL rules every web_fetch provider applies before spending a request: http(s) only,
// a host, no credentials in the URL.

import { WebError } from './errors.js'

/** Parses and checks a URL the model (or a redirect) gave; throws a WebError naming what is wrong. */
export function parseFetchUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new WebError('invalid', `not a valid URL: ${raw}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebError('refused', `refused to fetch ${url.protocol} URLs: only http and https are fetched`)
  if (url.username || url.password)
    throw new WebError('refused', 'refused to fetch a URL that carries credentials')
  if (!url.hostname) throw new WebError('invalid', `URL has no host: ${raw}`)
  return url
}
