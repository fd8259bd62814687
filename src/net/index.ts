// Public surface of outbound networking: the proxy settings of the environment, the
// proxy-aware fetch every remote request uses, and the dispatcher under it.

export { outboundFetch } from './outbound-fetch.js'
export { type ProxySettings, proxyFromEnv, proxySettings } from './proxy-settings.js'
export { createOutboundDispatcher, type DirectConnectOptions, loadUndici } from './undici.js'
