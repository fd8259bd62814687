// undici, imported on first use: only proxied requests and the plain-HTTP web fetch need
// it, and `dsh --version` or `sessions list` should not pay for loading it.

import type { LookupFunction } from 'node:net'
import type { Dispatcher } from 'undici'
import { type ProxySettings, proxySettings } from './proxy-settings.js'

export type Undici = typeof import('undici')

let loading: Promise<Undici> | undefined

/** The undici module (loaded once). */
export function loadUndici(): Promise<Undici> {
  loading ??= import('undici').then(
    // Bundled, undici is CommonJS: its exports may sit on the namespace's default only.
    (loaded) => (loaded as unknown as { default?: Undici }).default ?? loaded,
  )
  return loading
}

/** How the dispatcher connects where it connects directly (a host in NO_PROXY, or no proxy). */
export interface DirectConnectOptions {
  /** A DNS lookup for direct connections; a proxy resolves the names it is sent itself. */
  lookup?: LookupFunction
}

/**
 * A dispatcher for undici's `request`/`fetch` that follows `env`'s proxy settings: requests
 * go through HTTPS_PROXY / HTTP_PROXY, hosts in NO_PROXY (and everything, when no proxy is
 * named) connect directly with `direct`. The caller owns it and closes or destroys it.
 */
export async function createOutboundDispatcher(
  env: NodeJS.ProcessEnv = process.env,
  direct: DirectConnectOptions = {},
  settings: ProxySettings | undefined = proxySettings(env),
): Promise<Dispatcher> {
  const { Agent, EnvHttpProxyAgent } = await loadUndici()
  const connect = direct.lookup ? { lookup: direct.lookup } : undefined
  if (!settings) return new Agent(connect ? { connect } : {})
  // An unset proxy is passed as '' because EnvHttpProxyAgent would fall back to
  // process.env, which is not the env the caller named. It hands `connect` to its direct
  // agent only: the proxy agents reach the proxy with their own connector, so the lookup
  // never judges the proxy's address.
  return new EnvHttpProxyAgent({
    httpProxy: settings.httpProxy ?? '',
    httpsProxy: settings.httpsProxy ?? '',
    noProxy: settings.noProxy,
    ...(connect ? { connect } : {}),
  })
}
