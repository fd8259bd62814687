// Types of the session log: the header, events, and the data each core event carries.

import type { ImageRef, Usage } from '../llm/types.js'
import type { UsageLedger } from '../usage/ledger-types.js'

declare const sessionIdBrand: unique symbol
/** A session's one identity; also the id of the live agent that drives it. Non-empty, any Unicode. */
export type SessionId = string & { readonly [sessionIdBrand]?: never }

export const SESSION_FORMAT_VERSION = 1

export interface SessionHeader {
  version: number
  id: SessionId
  createdAt: number
  cwd?: string
  parentSession?: SessionId
  seedLength?: number
  origin?: 'subagent'
  delegationDepth: number
}

export interface SessionEvent<T = unknown> {
  seq: number
  type: string
  time: number
  data: T
  ignorable?: true
}

export type TurnEndReason =
  | 'completed'
  | 'aborted'
  | 'error'
  | 'blocked'
  | 'max-steps'
  | 'interrupted'
  /** The model's answer was cut at the output limit (finish_reason `length`). */
  | 'length'
  /** The provider's content filter stopped the answer (finish_reason `content_filter`). */
  | 'content-filter'
  /** The turn's estimated cost reached the limit (`dsh run --max-cost`). */
  | 'max-cost'
  /** The model made the same tool call with the same result too many times in a row. */
  | 'repeated'

export interface AssistantMessageData {
  content: string
  reasoning?: string
}

export interface HookInvokedData {
  dialect: string
  event: string
  command: string
  matcher?: string
}

export interface HookResultData {
  dialect: string
  event: string
  command: string
  decision: 'allow' | 'deny' | 'ask' | 'block' | 'none' | 'error'
  exitCode: number | null
  timedOut?: boolean
  reason?: string
  stderr?: string
  /** The tool input a hook asked for instead (`updatedInput`), in the hook's field names. */
  updatedInput?: Record<string, unknown>
  durationMs: number
}

/** The data of every core event type, by type. */
export interface SessionEventMap {
  'turn/start': { turn: number }
  'turn/end': { turn: number; reason: TurnEndReason; error?: string }
  'step/start': { turn: number; step: number }
  'step/end': { turn: number; step: number; finishReason?: string }
  /** `images`: attached images, by content hash (the bytes are in the backend's image store). */
  'user/message': { text: string; origin?: 'user' | 'hook' | 'subagent'; images?: ImageRef[] }
  'assistant/message': { message: AssistantMessageData; usage?: Usage }
  'tool/call': { callId: string; name: string; arguments: string }
  /** `images`: images the tool returns to a vision model (`read` of a PNG), sent after the results. */
  'tool/result': { callId: string; content: string; isError?: boolean; images?: ImageRef[] }
  'hook/invoked': HookInvokedData
  'hook/result': HookResultData
  /** Extra context (from hooks or policies) that reaches the model on its next request. */
  'context/added': { source: string; text: string }
  /**
   * A cost outside the model's tokens (a paid web search or fetch, ...), added to the
   * usage totals when its currency is the price table's.
   */
  'usage/charge': { source: string; amount: number; currency: string; detail?: string }
  /** The system prompt, tool schemas, model and effort of the following requests; logged when they change. */
  'request/config': {
    model?: string
    effort?: 'off' | 'low' | 'high' | 'max'
    system: string
    tools: unknown[]
  }
  /** A file tool read (or wrote) a file: its real path, mtime (epoch ms), size and SHA-256. */
  'file/read': { path: string; mtimeMs: number; size: number; sha256: string }
  /**
   * A file tool changed a file. `before` is the SHA-256 of the previous content (kept in the
   * file history under the harness home), null when the file did not exist.
   */
  'file/change': {
    turn: number
    callId: string
    tool: string
    path: string
    before: string | null
    after: string
  }
  /**
   * A compaction boundary: from here on the model sees less of the log, which itself keeps
   * everything. `pruned` tool results are replaced by a placeholder; a `summary` replaces
   * every event before `keptFrom` (the seq of the first event still sent verbatim).
   */
  'context/compacted': ContextCompactedData
  /** The model's task list (todo_write), as one whole snapshot. */
  'todo/update': { todos: TodoItem[] }
  /**
   * The session's title, set by a person (`dsh sessions rename`, the web UI) or the model's
   * title call; the latest wins over the first prompt. Written `ignorable`, so an older dsh
   * that does not know it still loads the log.
   */
  'session/title': {
    title: string
    source: 'user' | 'model'
    /** A model's title: the model that wrote it and the side call's usage (priced like a step). */
    model?: string
    usage?: Usage
  }
  /**
   * The session's settings that a resume or fork restores, a whole snapshot (a field left
   * out was not chosen: the config's default applies). Logged before a turn when they differ
   * from the log's, and at once when they change (`/model`, `/effort`, a mode switch).
   */
  'session/settings': SessionSettings
  /**
   * Ends a fork's seed: the events before it were copied from `parentSession`, so their usage
   * is the parent's (shown as inherited), not the fork's own. Written `ignorable`.
   */
  'session/forked': { parentSession: SessionId }
  /** Project instructions (AGENTS.md / CLAUDE.md) the model is given as its first context message. */
  'instructions/loaded': { files: string[]; text: string }
}

/** What `session/settings` records; `mode` is a permission mode (`auto`, `plan`, ...). */
export interface SessionSettings {
  model?: string
  effort?: 'off' | 'low' | 'high' | 'max'
  mode?: string
}

export interface ContextCompactedData {
  /** `auto`: dsh decided (threshold or the server's context-length error); `manual`: a user asked. */
  trigger: 'auto' | 'manual'
  /** Why an automatic compaction ran. */
  reason?: 'threshold' | 'overflow'
  /** Call ids of tool results whose output the model no longer sees. */
  pruned?: string[]
  /** The summary that stands for every event before `keptFrom`. */
  summary?: string
  keptFrom?: number
  /** The user's own words for the summary (`/compact focus on the tests`). */
  instructions?: string
  /** Estimated tokens of the request before and after. */
  tokensBefore: number
  tokensAfter: number
  /** The summary call's model and usage (priced like any step). */
  model?: string
  usage?: Usage
}

export interface TodoItem {
  content: string
  status: 'pending' | 'in_progress' | 'completed'
  activeForm?: string
}

export type CoreEventType = keyof SessionEventMap

export interface SessionSummary {
  header: SessionHeader
  eventCount: number
  /** Epoch ms of the last stored event (or creation). */
  lastActivity: number
  /** The first user message, shortened; undefined when there is none yet. */
  title?: string
  /** The number of the last turn started (turns count from 1; 0 when none). */
  turns: number
  /** The host that last wrote it, from backends that several hosts share (PostgreSQL). */
  host?: string
  /** How the last turn ended (its `turn/end` reason), `open` while it has none; undefined before the first turn. */
  outcome?: SessionOutcome
  /** From backends that can tell: a writer holds it (`live`), an open turn nobody writes (`interrupted`), or neither. */
  status?: SessionStatus
  /**
   * The token counts and charges of every stored event, as `ledgerOf(events)` folds them:
   * what a listing prices its usage column from without reading the whole log. A fork's
   * seed (up to its `session/forked` marker) is in `usage.inherited`, not in its own counts.
   */
  usage: UsageLedger
}

export type SessionStatus = 'live' | 'interrupted' | 'idle'

/** The last turn's end reason, or `open` when the last turn has not ended (running, or crashed). */
export type SessionOutcome = TurnEndReason | 'open'
