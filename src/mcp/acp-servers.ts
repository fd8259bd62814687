// ACP `mcpServers` (session/new, session/load) as dsh server entries. ACP sends stdio
// servers with `env` as name/value pairs and remote ones with `headers` likewise.

import type { McpServerConfig } from './config.js'
import { normalizeName } from './naming.js'

interface NameValue {
  name: string
  value: string
}

/** The ACP schema's McpServer union (stdio has no `type`; http and sse do). */
export type AcpMcpServer =
  | { type: 'http' | 'sse'; name: string; url: string; headers: NameValue[] }
  | { type?: undefined; name: string; command: string; args: string[]; env: NameValue[] }

/** What dsh supports, for `agentCapabilities.mcpCapabilities` (stdio is always supported). */
export const ACP_MCP_CAPABILITIES = { http: true, sse: true } as const

const pairs = (list: readonly NameValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((pair) => [pair.name, pair.value]))

/** Entries keyed by the server's name made tool-name safe (`my server` → `my_server`). */
export function fromAcpServers(servers: readonly AcpMcpServer[]): Record<string, McpServerConfig> {
  const entries: Record<string, McpServerConfig> = {}
  for (const server of servers) {
    const name = normalizeName(server.name).slice(0, 64)
    if ('command' in server) {
      entries[name] = { command: server.command, args: [...(server.args ?? [])], env: pairs(server.env) }
    } else {
      entries[name] = { type: server.type, url: server.url, headers: pairs(server.headers) }
    }
  }
  return entries
}
