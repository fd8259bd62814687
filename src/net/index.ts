// Public surface of outbound networking: the proxy-aware fetch every remote request uses.

export { outboundFetch, proxyFromEnv } from './outbound-fetch.js'
