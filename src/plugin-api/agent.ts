// Types of the agent seam: the live handle of an agent and the options that create one.

import type { RetryNotice } from '../failures/index.js'
import type { ModelChoice } from '../llm/adapter.js'
import type { Session } from '../session/session.js'
import type { SessionEvent, SessionId, TurnEndReason } from '../session/types.js'
import type { CompactionNotice, CompactionResult, ContextUsage } from './context.js'
import type { PreparedImage } from './images.js'

export interface AgentMeta {
  cwd?: string
  parentSession?: SessionId
  origin?: 'subagent'
  delegationDepth?: number
}

export interface CreateAgentOptions {
  /** The single live identity: registry id and session id. */
  sessionId: SessionId
  meta?: AgentMeta
  /** Completed turns copied in (fork). */
  seed?: readonly SessionEvent[]
  model?: ModelChoice
  /** Aborts the creation transaction. */
  signal?: AbortSignal
}

export interface ResumeAgentOptions {
  resumeSessionId: SessionId
  model?: ModelChoice
  signal?: AbortSignal
}

export interface ForkAgentOptions {
  /** The live or stored session to fork. */
  sourceSessionId: SessionId
  /** The new agent's id. Default: a fresh UUID. */
  sessionId?: SessionId
  /** How many leading events to copy. Default: the last completed turn's end, with the compactions after it. */
  boundary?: number
  /** Cut after this turn's end instead (turns count from 1); a bad number is SESSION_BAD_TURN. */
  atTurn?: number
  model?: ModelChoice
  signal?: AbortSignal
}

export interface PromptOptions {
  /** Cancels this turn: it ends `aborted`, running tools are killed, the log stays valid. */
  signal?: AbortSignal
  origin?: 'user' | 'subagent'
  /**
   * Images the prompt attaches, prepared by src/attachments (checked, downscaled, hashed).
   * Refused with one line, before anything is logged, when the model does not take images.
   */
  images?: readonly PreparedImage[]
}

export interface TurnResult {
  turn: number
  reason: TurnEndReason
  /** The final assistant text of the turn (what was shown, when aborted). */
  text: string
  error?: string
}

/** Live output of an agent, for front ends; everything durable is also in the session log. */
export type AgentOutput =
  | { type: 'turn-start'; turn: number; prompt: string }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-start'; callId: string; name: string; arguments: string }
  | {
      type: 'tool-end'
      callId: string
      name: string
      content: string
      isError: boolean
      /** The call was cancelled, killed or timed out (bash), which is not a tool error. */
      interrupted?: true
    }
  | { type: 'turn-end'; result: TurnResult }
  /** A model request failed and is retried after a wait; `message` is the line to show. */
  | { type: 'retry'; message: string; notice: RetryNotice }
  /** A compaction started or ended (automatic within a turn, or asked for with `compact`). */
  | ({ type: 'compaction' } & CompactionNotice)

/** A live agent. Its id is its session's id, always. */
export interface AgentHandle {
  readonly id: SessionId
  readonly session: Session
  /** The working directory: the session cwd. */
  readonly cwd: string
  readonly model: ModelChoice
  /** Changes the model choice (model, effort, ...) from the next step on; unset fields keep their value. */
  setModel(choice: ModelChoice): void
  /**
   * Logs a `session/settings` snapshot of what it runs with now (model, effort, and what
   * `agent/settings` listeners add, e.g. the permission mode) unless the log already holds it.
   */
  recordSettings(): void
  /** True while a turn runs. */
  readonly busy: boolean
  /** Queues a user message and runs one turn for it; resolves with how the turn ended. */
  prompt(text: string, options?: PromptOptions): Promise<TurnResult>
  /** Cancels the running turn, if any. */
  cancel(): void
  /** Subscribes to live output; returns the unsubscribe function. */
  onOutput(listener: (output: AgentOutput) => void): () => void
  /**
   * Compacts the session's context now (after the running turn, like a prompt): a summary
   * replaces the history but for its recent tail. Rejects when there is no context service,
   * a PreCompact hook blocks it, or the summary call fails; the log is then unchanged.
   */
  compact(options?: { instructions?: string; signal?: AbortSignal }): Promise<CompactionResult>
  /** How full the next request would be, and with what (undefined without a context service). */
  contextUsage(): ContextUsage | undefined
}

/** What one turn runs with: the system prompt, the model, the step limits. */
export interface TurnSettings {
  systemPrompt: string
  model: ModelChoice
  maxStepsPerTurn: number
  /** How many times a `turn-stopping` listener may force another step in one turn. */
  maxStopContinuations: number
}
