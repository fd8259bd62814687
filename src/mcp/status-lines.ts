// One readable line per MCP server, shared by `dsh mcp list` and `/mcp` in chat.

import { toTerminalText } from '../core/terminal-text.js'
import type { McpServerSource } from './config.js'
import type { McpConnection } from './connection.js'
import type { McpServerStatus } from './manager-types.js'

export function describeSource(source: McpServerSource): string {
  switch (source.kind) {
    case 'user':
      return source.file ? `config ${source.file}` : 'config'
    case 'project':
      return `project ${source.file}`
    case 'session':
      return `session ${source.sessionId}`
  }
}

const STATE_WORDS: Record<McpServerStatus['state'], string> = {
  idle: 'not started',
  starting: 'starting',
  connected: 'connected',
  failed: 'failed',
  crashed: 'crashed',
  closed: 'stopped',
  untrusted: 'not loaded: folder not trusted',
}

/** `name  state · N tools · source` plus the error, made safe for a terminal. */
export function statusLine(status: McpServerStatus): string {
  const tools = status.state === 'connected' ? ` · ${status.tools} tool${status.tools === 1 ? '' : 's'}` : ''
  const error = status.error ? ` — ${status.error}` : ''
  return toTerminalText(
    `${status.name}  ${STATE_WORDS[status.state]}${tools} · ${describeSource(status.source)}${error}`,
  )
}

/** `  ⋯ server: message (3/10)` for a progress notification, terminal-safe. */
export function progressLine(progress: {
  server: string
  progress: number
  total?: number
  message?: string
}): string {
  const amount =
    progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`
  const text = progress.message ? `${progress.message} (${amount})` : amount
  return toTerminalText(`  ⋯ ${progress.server}: ${text}`.replace(/\s*\n\s*/g, ' '))
}

/**
 * The warning for a server whose start failed or is not done yet, or that crashed
 * (undefined: nothing to say). `background`: the first request did not wait for it (`dsh run`).
 */
export function startReport(connection: McpConnection, background: boolean): string | undefined {
  if (connection.state === 'failed')
    return `MCP server ${connection.name} failed to start: ${connection.error}`
  if (connection.state === 'crashed') {
    const next = connection.restartsLeft ? 'it is restarted on the next call' : 'it is not restarted again'
    return `MCP server ${connection.name} stopped: ${connection.error}; ${next}`
  }
  if (connection.state !== 'starting') return undefined
  if (background) return `MCP server ${connection.name} is still starting; its tools join when it is ready`
  const seconds = Math.round(connection.startupTimeoutMs / 1000)
  return `MCP server ${connection.name} is still starting after ${seconds} s; its tools join when it is ready`
}

/** `dsh run`'s first step: the servers not ready yet, in one line. */
export function startingLine(connections: readonly McpConnection[]): string {
  const names = connections.map((connection) => connection.name)
  const shown =
    names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ')
  return names.length === 1
    ? `MCP server ${shown} is still starting; its tools join when it is ready`
    : `MCP servers ${shown} are still starting; their tools join when each is ready`
}
