// Public surface of the subagent tool.

import type { AgentHandle, TurnResult } from '../../agent/types.js'

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
  }
}
