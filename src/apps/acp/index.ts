// Public surface of `dsh acp`: an Agent Client Protocol agent over newline-delimited JSON.

import { AcpServer, type AcpServerOptions } from './server.js'

export { AcpErrorCode } from './errors.js'
export type { PermissionAsker } from './permission.js'
export { acpPermissionPlugin, PERMISSION_OPTIONS } from './permission.js'
export { promptText } from './prompt-text.js'
export type { AcpServerOptions } from './server.js'
export { ACP_AGENT_LABEL } from './server.js'
export { toStopReason } from './stop-reason.js'
export { acpToolCallId, outputUpdate, replayUpdates } from './updates.js'

/**
 * Serves `dsh acp` on `input`/`output` until the input ends (the client went away). Every
 * agent opened by this connection is then disposed (its session flushed). The harness stays
 * owned by the caller. Nothing but ACP messages is ever written to `output`.
 */
export function runAcpServer(options: AcpServerOptions): Promise<void> {
  return new AcpServer(options).run()
}
