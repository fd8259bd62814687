// The named events through which policies and hooks attach to the loop. Listeners
// mutate the state object they receive (serial dispatch) or decide (waterfall).

import type { ImageRef } from '../llm/types.js'
import type { SessionSettings, TurnEndReason } from '../session/types.js'
import type { AgentHandle, TurnResult } from './agent.js'
import type { ToolOutput } from './tools.js'

export interface ToolCallInfo {
  agent: AgentHandle
  turn: number
  callId: string
  name: string
  /** The model's JSON text, verbatim. */
  arguments: string
  /** The parsed arguments, or undefined when they are not JSON. */
  input: unknown
  /** Aborts when the turn is cancelled; listeners stop their own work (hooks) with it. */
  signal: AbortSignal
}

/** A front end's answer to an approval question. */
export type ApprovalAnswer = boolean | { readonly feedback: string } | undefined

export type PreExecuteDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; reason: string }

export interface PostExecuteState {
  call: ToolCallInfo
  output: ToolOutput
  /** False when the tool body never ran (denied, not approved). */
  executed: boolean
  /** Feedback shown to the model with the result (a hook blocked or commented). */
  feedback: string[]
  /** Context the model sees on its next request. */
  context: string[]
}

export interface TurnStartingState {
  agent: AgentHandle
  turn: number
  prompt: string
  /** Images the prompt attaches (already stored; see src/attachments). */
  images?: readonly ImageRef[]
  signal: AbortSignal
  /** Set to block the turn: it closes `blocked` without a model request. */
  block?: string
  context: string[]
}

export interface PreStepState {
  agent: AgentHandle
  turn: number
  step: number
  signal: AbortSignal
  /** Set to end the turn before this step's model request (reason `blocked`). */
  reject?: string
  /** Set to end the turn before this step's model request with its own reason (a budget ran out). */
  end?: { reason: TurnEndReason; message: string }
}

export interface TurnStoppingState {
  agent: AgentHandle
  turn: number
  /** The final text the model produced. */
  text: string
  /** True when this stop already follows a forced continuation. */
  continued: boolean
  signal: AbortSignal
  /** Set to make the agent continue with this text as a new message. */
  continueWith?: string
}

/** Sections plugins add to an agent's system prompt when it is created (stable for its life). */
export interface SystemPromptState {
  readonly cwd: string
  readonly sessionId: string
  /** Appended after the base prompt, in listener order, separated by blank lines. */
  sections: string[]
}

export interface AgentPipelineEvents {
  /**
   * Before the agent and its system prompt are built: decisions the prompt depends on
   * (project trust, which may ask the user) are made here. Throwing aborts the creation.
   */
  'agent/preparing'(info: { readonly cwd: string; readonly sessionId: string }): Promise<void> | void
  /** Synchronous: listeners push sections onto `state.sections` (skills, ...). */
  'agent/system-prompt'(state: SystemPromptState): void
  /** Runs after setup and before publish; throwing aborts the creation transaction. */
  'agent/setup'(agent: AgentHandle): Promise<void> | void
  'agent/created'(agent: AgentHandle, info: { source: 'new' | 'resume' }): Promise<void> | void
  'agent/disposed'(agent: AgentHandle): Promise<void> | void
  /** Synchronous: listeners fill in the settings they own (the permission policy: `mode`). */
  'agent/settings'(agent: AgentHandle, settings: SessionSettings): void
  'agent/turn-starting'(state: TurnStartingState): Promise<void> | void
  'agent/pre-step'(state: PreStepState): Promise<void> | void
  'agent/turn-stopping'(state: TurnStoppingState): Promise<void> | void
  'agent/turn-ended'(agent: AgentHandle, result: TurnResult): void
  'tools/pre-execute'(
    call: ToolCallInfo,
    next: () => Promise<PreExecuteDecision>,
  ): Promise<PreExecuteDecision>
  /**
   * Asked when a pre-execute decision is `ask`; answer true to allow. No answer denies;
   * `{ feedback }` denies and tells the model what the user wants instead.
   */
  'tools/approve'(call: ToolCallInfo, reason: string): Promise<ApprovalAnswer> | ApprovalAnswer
  /** The call was allowed (by policy, hook or the user) and its body starts now. */
  'tools/running'(call: ToolCallInfo): void
  'tools/post-execute'(state: PostExecuteState): Promise<void> | void
}
