// Starting one MCP server's connection: the SDK transport for its config (stdio with the
// shell's scrubbed environment, Streamable HTTP or SSE through the proxy-aware fetch), the
// start-up pacing, and the one-line reason a start failed. Split from connection.ts.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { errorMessage } from '../core/errors.js'
import { outboundFetch } from '../net/index.js'
import { buildChildEnv, DEFAULT_SECRET_FILTER, type SecretFilter } from '../shell/index.js'
import { isStdio, type McpServerConfig } from './config.js'
import type { ServerLog } from './server-log.js'

/** The SDK transport for a server's (expanded) config. */
export async function createTransport(
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
  options: { secrets?: SecretFilter; cwd?: string; log: ServerLog },
): Promise<Transport> {
  if (isStdio(config)) {
    const { StdioProcessTransport } = await import('./stdio-transport.js')
    const cwd = config.cwd ?? options.cwd
    const transport = new StdioProcessTransport({
      command: config.command,
      args: config.args,
      // The shell's scrubbing: no DSH_* and no credential-looking names, then the entry's env.
      env: buildChildEnv(env, config.env, {}, options.secrets ?? DEFAULT_SECRET_FILTER),
      ...(cwd !== undefined ? { cwd } : {}),
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

export function describeStartError(error: unknown): string {
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

let lastStartSlot: Promise<void> = Promise.resolve()
/** Resolves in a later turn of the event loop than the slot before it (signals are handled in between). */
export function nextStartSlot(): Promise<void> {
  const slot = lastStartSlot.then(() => new Promise<void>((resolve) => setImmediate(resolve)))
  lastStartSlot = slot
  return slot
}
