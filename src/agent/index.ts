// Public surface of the agent seam.

import type { AgentPipelineEvents } from '../plugin-api/index.js'
import type { AgentRegistry } from './registry.js'

export type {
  AgentHandle,
  AgentMeta,
  AgentOutput,
  CreateAgentOptions,
  ForkAgentOptions,
  PostExecuteState,
  PreExecuteDecision,
  PreStepState,
  PromptOptions,
  ResumeAgentOptions,
  ToolCallInfo,
  TurnResult,
  TurnStartingState,
  TurnStoppingState,
} from '../plugin-api/index.js'
export { Agent } from './agent.js'
export { abortableDelay, TurnCancellation } from './cancellation.js'
export type { ConfiguredAgentRow } from './configured.js'
export { mintSessionId, startConfiguredAgent } from './configured.js'
export { AgentErrorCode } from './errors.js'
export { defaultSystemPrompt } from './prompts/system-prompt.js'
export type { AgentRegistryConfig } from './registry.js'
export { AgentRegistry, DEFAULT_MAX_STEPS_PER_TURN, DEFAULT_MAX_STOP_CONTINUATIONS } from './registry.js'
export { currentSettings, recordSettings } from './settings.js'
export { CANCELLED_TOOL_RESULT } from './tool-scheduler.js'
export { nextTurnNumber } from './turn-runner.js'

declare module 'cordis' {
  interface Context {
    agents: AgentRegistry
  }
  interface Events extends AgentPipelineEvents {}
}
