// The types of one MCP server connection (connection.ts): its states, progress reports,
// prompts, and the options it is made with.

import type { ToolExecution } from '../plugin-api/index.js'
import type { SecretFilter } from '../shell/index.js'
import type { SpillStore } from '../spill/index.js'
import type { McpServerConfig, McpServerSource } from './config.js'

export type McpServerState = 'idle' | 'starting' | 'connected' | 'failed' | 'crashed' | 'closed'

export interface McpProgress {
  server: string
  execution: ToolExecution
  progress: number
  total?: number
  message?: string
}

export interface McpPromptInfo {
  name: string
  description?: string
  arguments?: { name: string; description?: string; required?: boolean }[]
}

export interface McpConnectionOptions {
  /** The server's name (the key of its entry). */
  name: string
  config: McpServerConfig
  source: McpServerSource
  /** The harness home: server logs and spilled results live under it. */
  home: string
  /** Folder a stdio server runs in when its entry names none. */
  cwd: string
  /**
   * Folder a relative `cwd` of the entry is resolved against, once its `${VAR}`s are
   * expanded. Default: `cwd` (a project's root, an ACP session's folder); for the user's
   * servers, the config file's folder.
   */
  cwdBase?: string
  /** Read for `${VAR}` expansion and scrubbed for the child; never modified. Default: process.env. */
  env?: NodeJS.ProcessEnv
  /** The shell's secret scrubbing (config `secrets`). Default: the built-in rule. */
  secrets?: SecretFilter
  /** Tools, prompts or state changed. */
  onChange?: () => void
  onProgress?: (progress: McpProgress) => void
  /** The one spill store, looked up at call time. */
  spill?: () => SpillStore | undefined
}
