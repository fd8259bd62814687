// Access control of the web server: a random access token (from the printed URL, then an
// HttpOnly SameSite=Strict cookie), a CSRF token every mutation must send as a header, and
// the security headers every response carries.

import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

export const TOKEN_COOKIE = 'dsh_web_token'
export const TOKEN_PARAM = 'token'
export const CSRF_HEADER = 'x-dsh-csrf'

/** The secrets of one server process; printed once, never stored. */
export interface WebSecrets {
  token: string
  csrf: string
}

export function createSecrets(): WebSecrets {
  return { token: randomBytes(24).toString('base64url'), csrf: randomBytes(24).toString('base64url') }
}

/** The content security policy: nothing inline, nothing from elsewhere. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
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
export type Access = 'cookie' | 'query' | 'bearer' | 'none'

/** Which credential the request carries that matches the token (the cookie, `?token=`, or a bearer header). */
export function checkAccess(req: IncomingMessage, url: URL, secrets: WebSecrets): Access {
  const cookie = readCookie(req.headers.cookie, TOKEN_COOKIE)
  if (cookie !== undefined && same(cookie, secrets.token)) return 'cookie'
  const query = url.searchParams.get(TOKEN_PARAM)
  if (query !== null && same(query, secrets.token)) return 'query'
  const auth = req.headers.authorization
  if (auth?.startsWith('Bearer ') && same(auth.slice(7), secrets.token)) return 'bearer'
  return 'none'
}

/** The cookie that replaces the token in the URL after the first visit. */
export function tokenCookie(secrets: WebSecrets): string {
  return `${TOKEN_COOKIE}=${secrets.token}; HttpOnly; SameSite=Strict; Path=/`
}

/** Mutations must carry the CSRF header; a foreign Origin is refused even with it. */
export function checkMutation(req: IncomingMessage, secrets: WebSecrets): string | undefined {
  const header = req.headers[CSRF_HEADER]
  if (typeof header !== 'string' || !same(header, secrets.csrf)) return 'missing or wrong CSRF header'
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `http://${req.headers.host}`) return 'cross-origin request'
  return undefined
}

export function isMutation(method: string | undefined): boolean {
  return method !== 'GET' && method !== 'HEAD'
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim()
  }
  return undefined
}

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
