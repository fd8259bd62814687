// Types of the ACP server's state: the sessions a connection serves and their running prompt.

import type { AgentHandle } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'

export interface RunningPrompt {
  turn: number
  /** Set by session/cancel: the answer is `cancelled` unless the turn completed anyway. */
  cancelled: boolean
  /** Aborted by session/cancel, also before the turn starts (while images are prepared). */
  controller: AbortController
}

export interface ServedSession {
  agent: AgentHandle
  /** The id the client knows it by (a `session/load` prefix, else the full id): every message for it carries this. */
  name: SessionId
  running?: RunningPrompt
  /** `always` permission answers by tool name. */
  remembered: Map<string, boolean>
}
