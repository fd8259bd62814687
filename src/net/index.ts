// Public surface of outbound networking: the proxy-aware fetch every remote request uses,
// and the streamed POST of the model request.

export { outboundFetch, proxyFromEnv } from './outbound-fetch.js'
export { outboundPost, type PostRequest, type PostResponse } from './outbound-post.js'
