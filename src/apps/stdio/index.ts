// Public surface of `dsh stdio`: a JSON-RPC 2.0 server over newline-delimited JSON that
// attaches one agent (resume-or-create by exact session id) and streams its session.

import { StdioServer, type StdioServerOptions } from './server.js'

export { JsonRpcErrorCode, StdioErrorCode } from './errors.js'
export type { JsonRpcErrorObject, JsonRpcId } from './json-rpc.js'
export { PERMISSION_OUTCOMES, type PermissionRequestParams, stdioCanAsk } from './permission.js'
export type {
  CancelResult,
  InitializeResult,
  PromptResult,
  SessionEventNotification,
  SessionOutputNotification,
} from './protocol.js'
export { STDIO_PROTOCOL_VERSION, StdioMethod, StdioNotification, StdioRequest } from './protocol.js'
export type { StdioServerOptions } from './server.js'
export { STDIO_AGENT_LABEL } from './server.js'

/**
 * Serves `dsh stdio` on `input`/`output`. Resolves once `shutdown` has been answered (a
 * running turn is cancelled and answered first) or the input ended (a running turn finishes
 * and is answered first, unless `session/cancel` came); the attached agent is disposed (its session flushed) either way.
 * The harness stays owned by the caller. Nothing but JSON-RPC messages is written to `output`.
 */
export function runStdioServer(options: StdioServerOptions): Promise<void> {
  return new StdioServer(options).run()
}
