// Hosts as WebFetch(domain:…) rules compare them, on both sides: the WHATWG URL parser's
// host (lower case, IDNA to punycode, percent-decoded, IPv4 number forms made dotted)
// without trailing dots and IPv6 brackets, so `http://EXAMPLE.com./` is example.com.

/** A rule's `domain:` value: one host, or every host below it (`*.example.com`). */
export interface DomainPattern {
  readonly host: string
  readonly subdomains: boolean
}

/** The `domain:` value as a pattern; undefined when it names no host (a port, a path, a stray `*`). */
export function domainPattern(value: string): DomainPattern | undefined {
  const trimmed = value.trim()
  const subdomains = trimmed.startsWith('*.')
  const name = subdomains ? trimmed.slice(2) : trimmed
  if (name === '' || /[\s*/?#@\\]/.test(name)) return undefined
  // A bare IPv6 address is written without brackets too (`domain:::1`); a `host:port` then fails to parse.
  const literal = name.includes(':') && !name.startsWith('[') ? `[${name}]` : name
  let url: URL
  try {
    url = new URL(`http://${literal}/`)
  } catch {
    return undefined
  }
  if (url.port !== '') return undefined
  const host = canonicalHost(url.hostname)
  return host === '' ? undefined : { host, subdomains }
}

/** The host a URL reaches, as rules compare it; undefined when it is no URL with a host. */
export function urlHost(url: string): string | undefined {
  try {
    const host = canonicalHost(new URL(url).hostname)
    return host === '' ? undefined : host
  } catch {
    return undefined
  }
}

/** Whether a `domain:` specifier names the host of `url`. */
export function domainMatches(specifier: string, url: unknown): boolean {
  if (!specifier.startsWith('domain:') || typeof url !== 'string') return false
  const pattern = domainPattern(specifier.slice('domain:'.length))
  const host = urlHost(url)
  if (pattern === undefined || host === undefined) return false
  return pattern.subdomains ? host.endsWith(`.${pattern.host}`) : host === pattern.host
}

function canonicalHost(hostname: string): string {
  // `example.com.` is the same name as `example.com` (a fully qualified one) to DNS.
  const host = hostname.toLowerCase().replace(/\.+$/, '')
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}
