// Outbound HTTP for every request dsh makes to a remote service: Node 20's `fetch` ignores
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, so when a proxy is configured requests go through
// undici's EnvHttpProxyAgent, which honours all three. Loaded only when a proxy is set.

import { proxySettings } from './proxy-settings.js'
import { createOutboundDispatcher, loadUndici } from './undici.js'

type Fetch = typeof globalThis.fetch

/** One proxying fetch per distinct proxy setting (usually just the one of the process). */
const proxied = new Map<string, Promise<Fetch>>()

/**
 * The fetch to use for an outbound request: the global one, or — when the environment
 * names a proxy — one that sends requests through it (hosts in NO_PROXY go direct). The
 * proxy comes from `env`, not only process.env: MCP servers read the harness's env.
 */
export function outboundFetch(env: NodeJS.ProcessEnv = process.env): Promise<Fetch> {
  const settings = proxySettings(env)
  if (settings === undefined) return Promise.resolve(globalThis.fetch)
  const key = JSON.stringify(settings)
  let made = proxied.get(key)
  if (!made) {
    made = Promise.all([loadUndici(), createOutboundDispatcher(env, {}, settings)]).then(
      ([{ fetch }, dispatcher]) =>
        ((input: Parameters<Fetch>[0], init?: RequestInit) =>
          fetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as Fetch,
    )
    proxied.set(key, made)
  }
  return made
}
