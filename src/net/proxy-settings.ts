// Which proxy the environment names: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case),
// read from the env a caller passes, so every outbound path agrees on one reading.

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const

/** What undici's EnvHttpProxyAgent is given: every field explicit, never its own env reading. */
export interface ProxySettings {
  httpProxy: string | undefined
  httpsProxy: string | undefined
  noProxy: string
}

/** The proxy the environment names, if any (blank values count as unset). */
export function proxyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of PROXY_VARIABLES) {
    const value = env[name]?.trim()
    if (value) return value
  }
  return undefined
}

/**
 * The proxy settings of `env`, or undefined when it names no proxy. HTTPS requests fall
 * back to HTTP_PROXY (as curl does); NO_PROXY lists hosts reached directly.
 */
export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings | undefined {
  if (proxyFromEnv(env) === undefined) return undefined
  const pick = (...names: string[]) => names.map((name) => env[name]?.trim()).find(Boolean)
  return {
    httpProxy: pick('HTTP_PROXY', 'http_proxy'),
    httpsProxy: pick('HTTPS_PROXY', 'https_proxy') ?? pick('HTTP_PROXY', 'http_proxy'),
    noProxy: pick('NO_PROXY', 'no_proxy') ?? '',
  }
}
