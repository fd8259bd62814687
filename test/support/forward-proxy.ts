// A recording forward proxy on 127.0.0.1 for the proxy tests: it relays absolute-URL
// requests and CONNECT tunnels (undici tunnels http:// targets too), so a test can tell
// which requests went through it.

import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import type { Duplex } from 'node:stream'

export interface ForwardProxy {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** Each request relayed, in order, as `METHOD target` (`CONNECT host:port` for a tunnel). */
  seen: string[]
  server: Server
  /** Closes the proxy and every connection it holds. */
  close(): Promise<void>
}

export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const target = new URL(req.url ?? '')
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`)
    const [host, port] = (req.url ?? '').split(':')
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** What the proxy records for a request to `baseUrl`: a tunnel to its host, or the absolute URL. */
export function proxiedAs(baseUrl: string, method: string, path: string): string[] {
  return [`CONNECT ${new URL(baseUrl).host}`, `${method} ${baseUrl}${path}`]
}
