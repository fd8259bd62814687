// Public surface of the MCP seam: MCP servers (stdio, Streamable HTTP, legacy SSE) as
// model tools named `mcp__<server>__<tool>`, their prompts and resources.

import type { McpProgress } from './connection.js'
import type { McpManager } from './manager.js'

export { ACP_MCP_CAPABILITIES, type AcpMcpServer, fromAcpServers } from './acp-servers.js'
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  expandServerConfig,
  expandVariables,
  isStdio,
  MAX_MCP_SERVERS,
  type McpServerConfig,
  type McpServerSource,
  mcpSchemas,
  PROJECT_MCP_FILE,
  readProjectServers,
  SERVER_NAME,
} from './config.js'
export { McpConnection, type McpProgress, type McpPromptInfo, type McpServerState } from './connection.js'
export { McpErrorCode } from './errors.js'
export { McpManager, type McpManagerConfig, type McpServerStatus } from './manager.js'
export { MCP_TOOL_PREFIX, mcpToolName, mcpToolNames, normalizeName, serverOfToolName } from './naming.js'
export { mcpPlugin, mcpToolsPlugin } from './plugin.js'
export { expandPromptCommand, type PromptCommand, promptCommands } from './prompt-command.js'
export { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from './resource-tools.js'
export { resultText } from './results.js'
export { serverLogPath } from './server-log.js'
export { describeSource, progressLine, statusLine } from './status-lines.js'

declare module 'cordis' {
  interface Context {
    mcp: McpManager
  }
  interface Events {
    /** A server reported progress on a tool call. */
    'mcp/progress'(progress: McpProgress): void
    /** A server's state, tools or prompts changed. */
    'mcp/changed'(server: string): void
  }
}
