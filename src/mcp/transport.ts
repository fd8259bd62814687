// Starting one MCP server's connection: the SDK transport for its config (stdio with the
// shell's scrubbed environment, Streamable HTTP or SSE through the proxy-aware fetch), the
// start-up pacing, and the one-line reason a start or a call failed. Split from connection.ts.

import { stat } from 'node:fs/promises'
import { STATUS_CODES } from 'node:http'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { DshError, errorMessage } from '../core/errors.js'
import { absolutePath } from '../home/resolve-home.js'
import { outboundFetch } from '../net/index.js'
import { buildChildEnv, DEFAULT_SECRET_FILTER, type SecretFilter } from '../shell/index.js'
import { isStdio, type McpServerConfig } from './config.js'
import { McpErrorCode } from './errors.js'
import type { ServerLog } from './server-log.js'

/**
 * The SDK transport for a server's (expanded) config. A stdio server runs in its entry's
 * `cwd` (`~` and a relative one resolved against `cwdBase`), else in `cwd`; a `cwd` that is
 * not a folder rejects with a user-facing error saying so.
 */
export async function createTransport(
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
  options: { secrets?: SecretFilter; cwd: string; cwdBase?: string; log: ServerLog },
): Promise<Transport> {
  if (isStdio(config)) {
    const { StdioProcessTransport } = await import('./stdio-transport.js')
    const cwd =
      config.cwd !== undefined ? absolutePath(config.cwd, options.cwdBase ?? options.cwd) : options.cwd
    await assertFolder(cwd)
    const transport = new StdioProcessTransport({
      command: config.command,
      args: config.args,
      // The shell's scrubbing: no DSH_* and no credential-looking names, then the entry's env.
      env: buildChildEnv(env, config.env, {}, options.secrets ?? DEFAULT_SECRET_FILTER),
      cwd,
    })
    options.log.attach(transport.stderr, `${config.command} ${config.args.join(' ')}`)
    return transport
  }
  const url = new URL(config.url)
  const headers = config.headers
  // HTTPS_PROXY / HTTP_PROXY / NO_PROXY, read from the same environment as `${VAR}`s.
  const send = await outboundFetch(env)
  if (config.type === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js')
    return new SSEClientTransport(url, {
      requestInit: { headers },
      fetch: send,
      eventSourceInit: {
        fetch: (input, init) =>
          send(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
      },
    })
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  return new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: send })
}

/** Spawning in a missing folder fails as ENOENT, which reads as "command not found": said first. */
async function assertFolder(cwd: string): Promise<void> {
  let why = 'is not a folder'
  try {
    if ((await stat(cwd)).isDirectory()) return
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Any other failure (EACCES) is left to the spawn, which reports it as it is.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return
    why = 'does not exist'
  }
  throw new DshError(`its cwd ${cwd} ${why}`, McpErrorCode.BadCwd, { userFacing: true })
}

/** Why a tool call failed, in one line (an HTTP failure as its status and a short reason). */
export function describeCallError(error: unknown): string {
  const failure = httpFailure(error)
  return failure ? describeHttpFailure(failure) : errorMessage(error)
}

/** Why a server did not start, in one line. */
export function describeStartError(error: unknown): string {
  const failure = httpFailure(error)
  if (failure) return describeHttpFailure(failure)
  let message = errorMessage(error)
  const code = (error as { code?: unknown }).code
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  // fetch's "fetch failed" hides the reason (refused, unknown host) in its cause.
  if (message === 'fetch failed' && cause) message = `cannot connect (${String(cause.code ?? cause.message)})`
  if (code === 'ENOENT') return `command not found (${message})`
  if (code === -32000 || /connection closed/i.test(message)) return 'the server exited during start-up'
  if (code === -32001 || /timed out/i.test(message)) return 'the server did not answer initialize in time'
  return message
}

/** What the SDK puts before the response body of a failed POST (Streamable HTTP; SSE adds the status). */
const POST_FAILED = 'Error POSTing to endpoint'

/**
 * The status and body of an HTTP request the server refused, when `error` is one: the SDK's
 * StreamableHTTPError and SseError carry the status as `code`; the SSE transport's failed
 * POST says it in its message.
 */
function httpFailure(error: unknown): { status: number; body: string } | undefined {
  const message = errorMessage(error)
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'number' && code >= 400 && code <= 599) {
    const at = message.indexOf(`${POST_FAILED}: `)
    return { status: code, body: at >= 0 ? message.slice(at + POST_FAILED.length + 2) : '' }
  }
  const sse = new RegExp(`${POST_FAILED} \\(HTTP (\\d{3})\\): ?([\\s\\S]*)$`).exec(message)
  return sse ? { status: Number(sse[1]), body: sse[2]! } : undefined
}

/**
 * `HTTP 502 Bad Gateway`, with a JSON-RPC error's message or a short plain-text body after
 * it; never an HTML page. 401 and 403 say what to do: dsh has no OAuth flow, so a server
 * that wants a login needs its credentials in `headers`.
 */
function describeHttpFailure({ status, body }: { status: number; body: string }): string {
  const head = `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`
  if (status === 401 || status === 403)
    return `${head}: authentication required: set headers (e.g. Authorization) for this server in its config`
  const reason = shortReason(body)
  return reason ? `${head}: ${reason}` : head
}

/** The `error.message` of a JSON-RPC body, or a body of one short line that is not markup. */
function shortReason(body: string): string | undefined {
  const text = body.trim()
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message
    if (typeof message === 'string') return message.replace(/\s+/g, ' ').slice(0, 200)
  } catch {
    // Not JSON: judged as plain text below.
  }
  if (text === '' || text.length > 200 || /[<\n]/.test(text)) return undefined
  return text
}

let lastStartSlot: Promise<void> = Promise.resolve()
/** Resolves in a later turn of the event loop than the slot before it (signals are handled in between). */
export function nextStartSlot(): Promise<void> {
  const slot = lastStartSlot.then(() => new Promise<void>((resolve) => setImmediate(resolve)))
  lastStartSlot = slot
  return slot
}
