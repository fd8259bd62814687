// The access token in the browser: taken from the printed URL's fragment (`#token=…`, never
// sent to a server), kept in this origin's localStorage (scheme, host and port: another port
// cannot read it), and sent as a bearer header — or as `?token=` on a live stream (an
// EventSource cannot send headers; the server accepts it nowhere else).

const STORAGE_KEY = 'dsh-web-token'
const FRAGMENT = /^#token=([\w-]+)(.*)$/

let token: string | undefined

/**
 * Moves a `#token=…` fragment into storage and out of the address bar (and history); the rest
 * of the fragment (`#token=…#/session/id`) stays as the route. Call once, before the router reads the hash.
 */
export function takeTokenFromUrl(): void {
  const match = FRAGMENT.exec(location.hash)
  if (match) {
    token = match[1]!
    try {
      localStorage.setItem(STORAGE_KEY, token)
    } catch {
      // Storage disabled (a privacy mode): the token lives as long as this page.
    }
    history.replaceState(null, '', `${location.pathname}${location.search}${match[2] ?? ''}`)
    return
  }
  try {
    token = localStorage.getItem(STORAGE_KEY) ?? undefined
  } catch {
    // Storage disabled: no stored token; the server answers 401 and the page says what to open.
  }
}

/** Forgets a token the server refused (a restarted server has a new one); a newer one another tab stored stays. */
export function forgetToken(): void {
  const refused = token
  token = undefined
  try {
    if (refused !== undefined && localStorage.getItem(STORAGE_KEY) === refused)
      localStorage.removeItem(STORAGE_KEY)
  } catch {
    // Storage disabled: nothing was stored.
  }
}

/** The header every API call sends; empty without a token (the server then answers 401). */
export function authHeaders(): Record<string, string> {
  return token !== undefined ? { Authorization: `Bearer ${token}` } : {}
}

/** `path` with the token as a query parameter: for an EventSource, which cannot send headers (live streams only). */
export function withToken(path: string): string {
  if (token === undefined) return path
  return `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`
}
