// Public surface of the tool seam.

import type { ToolRegistry } from './registry.js'

export { ToolErrorCode } from './errors.js'
export { parseToolArguments, ToolRegistry, toolSchema } from './registry.js'
export type { CallId, ToolDefinition, ToolExecution, ToolOutput } from './types.js'

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
}
