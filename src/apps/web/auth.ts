// Access control of the web server: a random access token, sent by the page as a bearer
// header (live streams may carry it as `?token=`: an EventSource cannot send headers), never
// as a cookie (cookies reach every port of a host); the security headers every response carries.

import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** The cookie older versions kept the token in; the page shell clears it. */
export const TOKEN_COOKIE = 'dsh_web_token'
export const TOKEN_PARAM = 'token'

/** The secrets of one server process; printed once, never stored by the server. */
export interface WebSecrets {
  token: string
}

export function createSecrets(): WebSecrets {
  return { token: randomBytes(24).toString('base64url') }
}

/** The content security policy: nothing inline, nothing from elsewhere. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: for stored images, fetched with the bearer header (an <img> URL would carry the token).
  "img-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  res.setHeader('Cache-Control', 'no-store')
}

/** How a request proved it may talk to the server. */
export type Access = 'query' | 'bearer' | 'none'

/** Which credential the request carries that matches the token (`?token=` or a bearer header); a cookie is none. */
export function checkAccess(req: IncomingMessage, url: URL, secrets: WebSecrets): Access {
  const auth = req.headers.authorization
  if (auth?.startsWith('Bearer ') && same(auth.slice(7), secrets.token)) return 'bearer'
  const query = url.searchParams.get(TOKEN_PARAM)
  if (query !== null && same(query, secrets.token)) return 'query'
  return 'none'
}

/**
 * A read's problem, if any: `?token=` is accepted on the live streams only (an EventSource
 * cannot send a header; any other URL with the token could land in history or a new tab).
 */
export function checkRead(url: URL, access: Access): string | undefined {
  if (access === 'query' && !/^\/api\/(?:sessions\/[^/]+\/)?live$/.test(url.pathname))
    return 'unauthorized: only a live stream may carry the token in its URL; send it as an Authorization header'
  return undefined
}

/** Sent with the page shell: drops the cookie an older `dsh web` set, so browsers stop sending it to every port. */
export const CLEAR_TOKEN_COOKIE = `${TOKEN_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`

/**
 * Mutations must carry the token as a bearer header (a cross-site page cannot send one
 * without a CORS preflight, which this server never grants); a foreign Origin is refused even with it.
 */
export function checkMutation(req: IncomingMessage, access: Access): string | undefined {
  if (access !== 'bearer') return 'a mutation must send the token as an Authorization header'
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `http://${req.headers.host}`) return 'cross-origin request'
  return undefined
}

export function isMutation(method: string | undefined): boolean {
  return method !== 'GET' && method !== 'HEAD'
}

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
