// A small local web site for the web tool tests: routes answer real HTTP on 127.0.0.1.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Route = (req: IncomingMessage, res: ServerResponse, site: TestSite) => void | Promise<void>

export interface TestSite {
  /** `http://127.0.0.1:<port>` */
  origin: string
  port: number
  /** Paths requested, in order. */
  hits: string[]
  close(): Promise<void>
}

/** Starts a site on an ephemeral loopback port; unknown paths answer 404. */
export async function startTestSite(routes: Record<string, Route>): Promise<TestSite> {
  const hits: string[] = []
  let site!: TestSite
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    hits.push(path)
    const route = routes[path]
    if (!route) {
      res.writeHead(404, { 'Content-Type': 'text/html' })
      res.end('<h1>Not found</h1>')
      return
    }
    Promise.resolve(route(req, res, site)).catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  site = {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return site
}

/** A route answering one HTML (or other) body. */
export function page(body: string | Buffer, contentType = 'text/html; charset=utf-8', status = 200): Route {
  return (_req, res) => {
    res.writeHead(status, { 'Content-Type': contentType })
    res.end(body)
  }
}

/** A route answering a redirect to `location` (relative or absolute). */
export function redirect(location: string | ((site: TestSite) => string), status = 302): Route {
  return (_req, res, site) => {
    res.writeHead(status, { Location: typeof location === 'string' ? location : location(site) })
    res.end()
  }
}
