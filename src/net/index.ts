// Public surface of outbound networking: the proxy settings of the environment, the
// proxy-aware fetch every remote request uses, the dispatcher under it, and the
// streamed POST of the model request.

export { outboundFetch } from './outbound-fetch.js'
export { outboundPost, type PostRequest, type PostResponse } from './outbound-post.js'
export { type ProxySettings, proxyFromEnv, proxySettings } from './proxy-settings.js'
export { createOutboundDispatcher, type DirectConnectOptions, loadUndici } from './undici.js'
