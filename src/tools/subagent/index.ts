// Public surface of the subagent tool.

import type { AgentHandle, TurnResult } from '../../plugin-api/index.js'

export type { AcpAgentConnector, AcpAgentTransport, AcpSubagentConfig } from './acp-backend.js'
export { acpSubagentToolPlugin, mintAcpSubagentId, spawnAcpAgent } from './acp-backend.js'
export type { SubagentToolConfig } from './subagent-tool.js'
export { mintSubagentId, subagentToolPlugin } from './subagent-tool.js'

declare module 'cordis' {
  interface Events {
    'subagent/start'(
      parent: AgentHandle,
      child: AgentHandle,
      info: { description: string },
    ): Promise<void> | void
    'subagent/stop'(parent: AgentHandle, child: AgentHandle, result: TurnResult): Promise<void> | void
    /** A task is about to be delegated to an external ACP agent under `lifecycleId`. */
    'subagent/acp-start'(
      parent: AgentHandle,
      info: { lifecycleId: string; description: string },
    ): Promise<void> | void
    /** The delegated task ended (`stopReason` is ACP's; `error` when the run failed). */
    'subagent/acp-stop'(
      parent: AgentHandle,
      info: { lifecycleId: string; stopReason?: string; text: string; error?: string },
    ): Promise<void> | void
  }
}
