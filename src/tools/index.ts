// Public surface of the tool seam.

import type { ToolRegistry } from './registry.js'

export type {
  CallId,
  PermissionView,
  ProvidedTool,
  ToolDefinition,
  ToolExecution,
  ToolOutput,
  ToolProvider,
} from '../plugin-api/index.js'
export { ToolErrorCode } from './errors.js'
export { parseToolArguments, ToolRegistry, toolSchema } from './registry.js'

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
}
