// What a bridge needs from a dialect: which events it fires, what its matchers test, and
// how its JSON payloads and environment look. The wiring to the loop lives in bridge.ts.

import type { SessionLocation } from '../../persistence/types.js'
import type { AgentHandle, HookToolShape, ToolOutput } from '../../plugin-api/index.js'
import type { SessionHeader } from '../../session/types.js'
import type { HookDialectName, HookEventName, MergedOutcome } from './types.js'

/** Dialect-neutral facts about one event, gathered by the bridge from the loop. */
export interface HookFacts {
  /** The agent the event belongs to; for SubagentStart/SubagentStop, the parent. */
  agent: AgentHandle
  /** The turn number, for turn-scoped events. */
  turn?: number
  prompt?: string
  tool?: { name: string; callId: string; input: unknown; output?: ToolOutput }
  source?: 'startup' | 'resume' | 'compact'
  /** PreCompact and PostCompact: what triggered the compaction, the user's words, the summary. */
  compaction?: {
    trigger: 'auto' | 'manual'
    instructions?: string
    summary?: string
    /** Which compaction of the session this is (1 for the first): names a manual one's turn. */
    number: number
  }
  stopHookActive?: boolean
  lastAssistantMessage?: string
  /** SessionEnd: why the session ended. */
  reason?: string
  /** SubagentStart/SubagentStop: the sub-agent. */
  child?: AgentHandle
  /** PostToolUseFailure and StopFailure: what went wrong. */
  error?: string
  /** PostToolUseFailure: the call was interrupted (cancelled, timed out, killed). */
  interrupted?: boolean
  /** Notification: what dsh waits for. */
  notification?: { type: string; message: string; title?: string }
  /** The project root (CLAUDE_PROJECT_DIR). */
  projectDir?: string
  /** The running turn's signal: cancelling the turn kills its hooks. */
  signal?: AbortSignal
}

/** Lookups a payload builder may make; both answer at call time and touch no disk. */
export interface PayloadServices {
  /** `ctx.get('sessionPersistence')?.locate(header)`: synchronous, creates and flushes nothing. */
  locate(header: Readonly<SessionHeader>): SessionLocation | undefined
  /** The model name the agent talks to. */
  modelOf(agent: AgentHandle): string
  /** The thinking effort the agent's requests use (dsh's names: off, low, high, max). */
  effortOf(agent: AgentHandle): string
  /** How this dialect's hooks see a dsh tool (name, aliases, field names). */
  toolShape(name: string): HookToolShape
  /** The agent's permission mode in the dialect's words (`default` until modes exist). */
  permissionMode(agent: AgentHandle): string
}

export interface HookDialect {
  name: HookDialectName
  /** Events this dialect fires, in the order a session meets them. */
  events: readonly HookEventName[]
  /**
   * True when sub-agent sessions get SubagentStart/SubagentStop instead of their own
   * SessionStart, UserPromptSubmit, Stop and SessionEnd (Claude Code).
   */
  subagentEvents: boolean
  /** Events whose exit-0 plain (non-JSON) stdout is additional context. */
  plainStdoutContext: readonly HookEventName[]
  /** Whether a PreToolUse `ask` can be put to the user (Claude Code) or is unsupported (Codex). */
  canAsk: boolean
  /** Dsh tool names for tools that declare no shape of their own. */
  fallbackToolNames: Readonly<Record<string, string>>
  /** The names an event's matchers test, or undefined when the event ignores matchers. */
  matchTarget(event: HookEventName, facts: HookFacts, services: PayloadServices): string[] | undefined
  /** The text the model sees when a PreToolUse hook denies a call. */
  denyMessage(reason: string, facts: HookFacts, services: PayloadServices): string
  /** The JSON sent on the hook's stdin. */
  payload(event: HookEventName, facts: HookFacts, services: PayloadServices): Record<string, unknown>
  /** Events whose `systemMessage` the tool documents as discarded (never shown). */
  discardsSystemMessage: readonly HookEventName[]
  /**
   * Why the merged PreCompact outcome stops the compaction, or undefined when it does not:
   * Claude Code's exit 2 or `decision: "block"`, Codex's `continue: false`.
   */
  compactionBlock(outcome: MergedOutcome): string | undefined
  /** Extra environment for the hook process (ordinary variables only). */
  env(facts: HookFacts): Record<string, string> | undefined
  /**
   * The variable SessionStart hooks find the session env file in (CLAUDE_ENV_FILE): what they
   * write there is sourced before every later bash call of the session (session-env.ts).
   */
  envFileVariable: string
}
