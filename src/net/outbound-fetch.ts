// Outbound HTTP for every request dsh makes to a remote service: Node 20's `fetch` ignores
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, so when a proxy is configured requests go through
// undici's EnvHttpProxyAgent, which honours all three. Loaded only when a proxy is set.

type Fetch = typeof globalThis.fetch

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const

/** The proxy the environment names, if any (blank values count as unset). */
export function proxyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of PROXY_VARIABLES) {
    const value = env[name]?.trim()
    if (value) return value
  }
  return undefined
}

/** One proxying fetch per distinct proxy setting (usually just the one of the process). */
const proxied = new Map<string, Promise<Fetch>>()

/**
 * The fetch to use for an outbound request: the global one, or — when the environment
 * names a proxy — one that sends requests through it (hosts in NO_PROXY go direct). The
 * proxy comes from `env`, not only process.env: MCP servers read the harness's env.
 */
export function outboundFetch(env: NodeJS.ProcessEnv = process.env): Promise<Fetch> {
  if (proxyFromEnv(env) === undefined) return Promise.resolve(globalThis.fetch)
  const pick = (...names: string[]) => names.map((name) => env[name]?.trim()).find(Boolean)
  const settings = {
    httpProxy: pick('HTTP_PROXY', 'http_proxy'),
    httpsProxy: pick('HTTPS_PROXY', 'https_proxy') ?? pick('HTTP_PROXY', 'http_proxy'),
    noProxy: pick('NO_PROXY', 'no_proxy') ?? '',
  }
  const key = JSON.stringify(settings)
  let made = proxied.get(key)
  if (!made) {
    made = import('undici').then((loaded) => {
      // Bundled, undici is CommonJS: its exports may sit on the namespace's default only.
      const undici = (loaded as unknown as { default?: typeof loaded }).default ?? loaded
      const { EnvHttpProxyAgent, fetch } = undici
      const dispatcher = new EnvHttpProxyAgent(settings)
      return ((input: Parameters<Fetch>[0], init?: RequestInit) =>
        fetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as Fetch
    })
    proxied.set(key, made)
  }
  return made
}
