// The MCP plugin: the `ctx.mcp` service plus its attachment to the loop — servers start
// before an agent's first model request, sub-agents adopt their parent's servers, and the
// servers' tools reach every request through one tool provider.

import type { Context } from 'cordis'
import { McpManager, type McpManagerConfig } from './manager.js'

export const mcpToolsPlugin = {
  name: 'mcp-tools',
  inject: ['tools', 'mcp'],
  apply(ctx: Context) {
    ctx.tools.registerProvider(ctx.mcp.provider)
    ctx.on('agent/setup', (agent) => ctx.mcp.adopt(agent))
    ctx.on('agent/disposed', (agent) => ctx.mcp.release(agent))
    ctx.on('agent/pre-step', (state) => ctx.mcp.prepare(state.agent, state.signal))
  },
}

export const mcpPlugin = {
  name: 'mcp',
  apply(ctx: Context, config: McpManagerConfig) {
    ctx.plugin(McpManager, config)
    ctx.plugin(mcpToolsPlugin)
  },
}
