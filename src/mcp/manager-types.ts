// The types of the MCP service (manager.ts): its config, a server's status row, and the
// servers one project folder brings.

import type { SecretPolicy } from '../shell/index.js'
import type { McpServerConfig, McpServerSource } from './config.js'
import type { McpConnection } from './connection.js'

export interface McpManagerConfig {
  /** The user's servers (dsh's config file). */
  servers?: Record<string, McpServerConfig>
  /**
   * The config file they came from, for `dsh mcp list`; a relative `cwd` of theirs is
   * resolved against its folder (without one, against dsh's working folder).
   */
  configFile?: string
  home: string
  /** Read for `${VAR}` expansion and the servers' environment. Default: process.env. */
  env?: NodeJS.ProcessEnv
  /** The shell's secret policy (config `secrets`), applied to stdio servers' environment. */
  secrets?: SecretPolicy
  /** Only these servers (by configured name) are loaded, from any source: `dsh run --mcp`. */
  only?: readonly string[]
  /**
   * The first model request does not wait for servers to start (`dsh run`): each server's
   * tools join the request after it is ready; starts and failures are reported as they happen.
   */
  background?: boolean
}

/** A server as `dsh mcp list` and `/mcp` show it. */
export interface McpServerStatus {
  name: string
  source: McpServerSource
  state: McpConnection['state'] | 'untrusted'
  tools: number
  error?: string
  log?: string
}

export interface ProjectScope {
  root: string
  file?: string
  /** Set once the trust question is answered. */
  decision: Promise<boolean>
  connections: Map<string, McpConnection>
  problems: string[]
}
