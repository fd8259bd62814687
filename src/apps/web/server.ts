// The HTTP server of `dsh web`: the built front end (no secret in it, served to anyone who
// reaches the port), and the JSON API (api.ts) with its live event streams behind the token.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DshError, errorMessage, isDshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import { PersistenceErrorCode } from '../../persistence/errors.js'
import { routeApi, sendJson } from './api.js'
import { type Asset, findAssetsDir, loadAssets } from './assets.js'
import {
  CLEAR_TOKEN_COOKIE,
  checkAccess,
  checkMutation,
  checkRead,
  createSecrets,
  isMutation,
  setSecurityHeaders,
  TOKEN_PARAM,
  type WebSecrets,
} from './auth.js'
import { HttpError, WebErrorCode } from './errors.js'
import { WebHost } from './hosting.js'
import { SessionRows } from './rows.js'

export interface WebServerOptions {
  harness: Harness
  port?: number
  host?: string
  /** The built front end; default: found next to the build. */
  assetsDir?: string
  /** Fixed secrets (tests); default: fresh random ones. */
  secrets?: WebSecrets
}

export interface WebServer {
  /** `http://host:port/#token=…`: the URL to open (a fragment never reaches a server). */
  readonly url: string
  readonly origin: string
  readonly secrets: WebSecrets
  readonly host: WebHost
  /** Stops serving, ends live streams and releases every hosted agent's turn. The harness stays the caller's. */
  close(): Promise<void>
}

/** Starts the server; rejects with a user-facing error when the port cannot be bound. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const secrets = options.secrets ?? createSecrets()
  const assets = loadAssets(options.assetsDir ?? findAssetsDir())
  const index = assets.get('/index.html')
  if (!index) throw new DshError('the web front end has no index.html', WebErrorCode.NoFrontEnd)
  const host = new WebHost(options.harness)
  const rows = new SessionRows(options.harness)
  const context = { harness: options.harness, host, rows }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    setSecurityHeaders(res)
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname.startsWith('/api/')) {
      const access = checkAccess(req, url, secrets)
      if (access === 'none') {
        sendJson(res, 401, {
          error: 'unauthorized: open the URL `dsh web` printed (it carries the access token)',
        })
        return
      }
      const problem = isMutation(req.method) ? checkMutation(req, access) : undefined
      if (problem !== undefined) {
        sendJson(res, 403, { error: problem })
        return
      }
      const readProblem = isMutation(req.method) ? undefined : checkRead(url, access)
      if (readProblem !== undefined) {
        sendJson(res, 401, { error: readProblem })
        return
      }
      await routeApi(context, req, res, url)
      return
    }
    if (isMutation(req.method)) {
      sendText(res, 405, 'method not allowed\n')
      return
    }
    const queryToken = url.searchParams.get(TOKEN_PARAM)
    if (queryToken !== null) {
      // An old printed URL or a bookmark: the token moves to the fragment, which the page
      // reads and drops; no cookie is set, whatever the value.
      url.searchParams.delete(TOKEN_PARAM)
      res.writeHead(303, {
        Location: `${url.pathname}${url.search}#${TOKEN_PARAM}=${encodeURIComponent(queryToken)}`,
      })
      res.end()
      return
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      res.setHeader('Set-Cookie', CLEAR_TOKEN_COOKIE)
      sendAsset(res, index)
      return
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204)
      res.end()
      return
    }
    const asset = assets.get(url.pathname)
    if (asset) sendAsset(res, asset)
    else sendText(res, 404, 'not found\n')
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      if (error instanceof HttpError) sendJson(res, error.status, { error: error.message })
      else if (isDshError(error, PersistenceErrorCode.NotFound)) sendJson(res, 404, { error: error.message })
      else if (error instanceof DshError && error.userFacing) sendJson(res, 400, { error: error.message })
      else sendJson(res, 500, { error: `internal error: ${errorMessage(error)}` })
    })
  })
  const bindHost = options.host ?? '127.0.0.1'
  await listen(server, options.port ?? 0, bindHost)
  const { port } = server.address() as AddressInfo
  const shown = bindHost.includes(':') ? `[${bindHost}]` : bindHost
  const origin = `http://${shown}:${port}`
  return {
    url: `${origin}/#${TOKEN_PARAM}=${secrets.token}`,
    origin,
    secrets,
    host,
    async close() {
      await host.dispose()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new DshError(`port ${port} on ${host} is in use`, WebErrorCode.PortInUse, { userFacing: true }),
        )
      else
        reject(
          new DshError(`cannot listen on ${host}:${port}: ${error.message}`, WebErrorCode.Listen, {
            userFacing: true,
          }),
        )
    })
    server.listen(port, host, () => resolve())
  })
}

function sendAsset(res: ServerResponse, asset: Asset): void {
  res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length })
  res.end(asset.body)
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' })
  res.end(text)
}
