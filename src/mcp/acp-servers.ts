// ACP `mcpServers` (session/new, session/load) as dsh server entries. ACP sends stdio
// servers with `env` as name/value pairs and remote ones with `headers` likewise.

import { DshError } from '../core/errors.js'
import { MAX_MCP_SERVERS, type McpServerConfig, serverNameProblem, tooManyServers } from './config.js'
import { McpErrorCode } from './errors.js'
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

/**
 * Entries keyed by the server's name made tool-name safe (`my server` → `my_server`).
 * More than MAX_MCP_SERVERS, or a name that holds `__` once made safe, throws a
 * user-facing error.
 */
export function fromAcpServers(servers: readonly AcpMcpServer[]): Record<string, McpServerConfig> {
  if (servers.length > MAX_MCP_SERVERS)
    throw new DshError(tooManyServers('ACP mcpServers', servers.length), McpErrorCode.TooLarge, {
      userFacing: true,
    })
  const entries: Record<string, McpServerConfig> = {}
  for (const server of servers) {
    const name = normalizeName(server.name).slice(0, 64)
    const problem = serverNameProblem(name)
    if (problem !== undefined) {
      const shown =
        name === server.name
          ? JSON.stringify(name)
          : `${JSON.stringify(server.name)} (as a tool name ${name})`
      throw new DshError(`ACP mcpServers: ${shown}: ${problem}`, McpErrorCode.InvalidConfig, {
        userFacing: true,
      })
    }
    if ('command' in server) {
      entries[name] = { command: server.command, args: [...(server.args ?? [])], env: pairs(server.env) }
    } else {
      entries[name] = { type: server.type, url: server.url, headers: pairs(server.headers) }
    }
  }
  return entries
}
