// The methods of `dsh stdio`: their params (validated with zod at the boundary), their
// results, and the notifications the server sends while a session is attached.

import * as z from 'zod'
import type { AgentOutput, TurnResult } from '../../plugin-api/index.js'
import type { SessionEvent, SessionId, TurnEndReason } from '../../session/types.js'
import type { UsageReport, UsageTotals } from '../../usage/index.js'

/** Bumped only for breaking changes of this protocol. */
export const STDIO_PROTOCOL_VERSION = 1

export const StdioMethod = {
  Initialize: 'initialize',
  Prompt: 'session/prompt',
  Cancel: 'session/cancel',
  /** Compacts the session's context now; `session/cancel` cancels it. */
  Compact: 'session/compact',
  Shutdown: 'shutdown',
} as const

/** Requests dsh sends to the client (each with an id; the client answers). */
export const StdioRequest = {
  /** An `ask` of the permission policy; sent only to a client that said it answers them. */
  RequestPermission: 'session/requestPermission',
} as const

export const StdioNotification = {
  /** Every event appended to the attached session's log, in seq order. */
  Event: 'session/event',
  /** Live agent output (text and reasoning deltas, tool start/end, turn start/end, compaction start/end). */
  Output: 'session/output',
} as const

export const initializeParams = z.object({
  /** Exact session id: resumed when stored, created otherwise. Absent: a fresh id is minted. */
  sessionId: z.string().min(1).optional(),
  /** A stored session to resume: its id or a unique prefix of 6+ characters (never created). Not with sessionId. */
  resume: z.string().min(1).optional(),
  /** Working directory of a created session (ignored on resume: the stored header wins). */
  cwd: z.string().min(1).optional(),
  /** Model name for this agent. */
  model: z.string().min(1).optional(),
  /** The protocol version the client speaks; the answer names the server's. */
  protocolVersion: z.number().int().optional(),
  /** What the client can do; `requestPermission`: it answers `session/requestPermission`. */
  capabilities: z.object({ requestPermission: z.boolean().optional() }).optional(),
})

/** A prompt: its text, and images as base64 (`@shot.png` in the text also attaches; docs/images.md). */
export const promptParams = z.object({
  text: z.string(),
  images: z
    .array(z.object({ data: z.string().min(1), name: z.string().min(1).max(255).optional() }).strict())
    .optional(),
})

export const emptyParams = z.object({})

export const compactParams = z.object({
  /** What the summary should keep or focus on (`/compact focus on the tests`). */
  instructions: z.string().optional(),
})

export interface CompactResult {
  /** Estimated tokens of the next request before and after. */
  tokensBefore: number
  tokensAfter: number
  /** Tool outputs pruned, and whether a summary replaced the older history. */
  pruned: number
  summarised: boolean
  /** `context compacted: 812k → 41k tokens` */
  line: string
}

export interface InitializeResult {
  sessionId: SessionId
  /** The session's dedicated log file (`locate`), or null when the backend keeps none. */
  transcriptPath: string | null
  protocolVersion: number
  /** True when an existing session was resumed, false when it was created. */
  resumed: boolean
  /** True when an `ask` becomes `session/requestPermission` (the client said it answers them); false: it is denied. */
  requestPermission: boolean
}

export interface PromptResult {
  turn: number
  reason: TurnEndReason
  text: string
  error?: string
  /** Tokens and estimated cost of this turn, and of the whole session so far, in `currency`. */
  usage?: UsageTotals
  sessionUsage?: UsageTotals
  currency?: string
}

export interface CancelResult {
  /** True when a running turn was asked to stop. */
  cancelled: boolean
}

export interface SessionEventNotification {
  sessionId: SessionId
  event: SessionEvent
}

export interface SessionOutputNotification {
  sessionId: SessionId
  output: AgentOutput
}

export function toPromptResult(result: TurnResult, report?: UsageReport): PromptResult {
  return {
    turn: result.turn,
    reason: result.reason,
    text: result.text,
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(report ?? {}),
  }
}
