// Types of the web API: what the JSON endpoints and the live event stream carry.
// The browser code imports these too (types only), so both sides agree.

import type { AgentOutput, CompactionResult } from '../../plugin-api/index.js'
import type { SessionEvent, SessionHeader } from '../../session/types.js'
import type { PriceTable } from '../../usage/price-table.js'

/** One row of the sessions page. */
export interface SessionRow {
  id: string
  title: string | null
  cwd: string | null
  /** `running` / `hosted`: this server drives it; else the backend's `live`, `interrupted` or `idle`. */
  status: string
  turns: number
  events: number
  /** Input plus output tokens; null when the log could not be read. */
  tokens: number | null
  /** Estimated cost in the price table's currency; null when unknown. */
  cost: number | null
  createdAt: number
  updatedAt: number
  parentSession: string | null
  origin: string | null
  host: string | null
}

export interface SessionsResponse {
  sessions: SessionRow[]
  currency: string
}

/** `DELETE /api/sessions/:id`: what went; sub-agent sessions another process writes stay. */
export interface RemoveResponse {
  removed: string[]
  refused: { id: string; message: string }[]
}

/** A tool call waiting for the user's approval, with exactly what would run. */
export interface PendingApproval {
  id: string
  /** The session whose page asks (the top-level session of a sub-agent's call). */
  sessionId: string
  /** The session that made the call (differs for sub-agents). */
  callerSessionId: string
  callId: string
  tool: string
  /** The command for bash, else the arguments as the model sent them. */
  command: string
  reason: string
  /** A file edit's proposed change as diff lines (`-` out, `+` in), bounded. */
  diff?: string[]
}

/** The project-trust question: may `folder` bring its own configuration (`brings`)? */
export interface TrustQuestion {
  id: string
  folder: string
  /** What the project would add: "1 permission allow rule", "2 Claude Code hooks (...)". */
  brings: string[]
}

/** Whether and how this server drives a session. */
export interface SessionState {
  /** This server holds the session's writer lease and can prompt it. */
  hosted: boolean
  busy: boolean
  /** A compaction this server started runs (busy is true too). */
  compacting: boolean
  /** How full the hosted agent's next request would be; null when not hosted here or unknown. */
  context: ContextFill | null
  model: string | null
  effort: string | null
  approvals: PendingApproval[]
}

/** The hosted agent's context usage: tokens of its next request and the model's window (null: unknown). */
export interface ContextFill {
  tokens: number
  window: number | null
}

/** `POST /api/sessions/:id/compact`: tokens before and after, and the state it left. */
export interface CompactResponse {
  result: CompactionResult
  state: SessionState
}

export interface SessionResponse {
  header: SessionHeader
  events: SessionEvent[]
  state: SessionState
  currency: string
  /** The resolved price table: the page derives each turn's cost with src/usage, as the server does. */
  prices: PriceTable
  /** Where the backend keeps the log (null: no dedicated file). */
  path: string | null
}

export interface ModelsResponse {
  models: string[]
  efforts: string[]
  defaultModel: string | null
  defaultEffort: string
  /** The server's working folder, the new-session dialog's default. */
  cwd: string
}

/**
 * One message of a live stream (server-sent events): `GET /api/sessions/:id/live` carries
 * a session's messages and the trust questions; `GET /api/live` the trust questions only.
 */
export type LiveMessage =
  | { kind: 'event'; event: SessionEvent }
  | { kind: 'output'; output: AgentOutput }
  | { kind: 'approval'; approval: PendingApproval }
  | { kind: 'approval-done'; id: string }
  | { kind: 'state'; state: SessionState }
  | { kind: 'error'; message: string }
  | { kind: 'trust'; question: TrustQuestion }
  | { kind: 'trust-done'; id: string }
  /** A terminal the model drives changed (its screen now), or closed. */
  | { kind: 'terminal'; terminal: TerminalView }
  | { kind: 'terminal-closed'; id: string }

/** A terminal of the session as the page shows it: read-only, the screen as text. */
export interface TerminalView {
  id: string
  command: string
  status: 'running' | 'exited'
  exitCode: number | null
  cols: number
  rows: number
  foreground: string
  screen: string[]
}
