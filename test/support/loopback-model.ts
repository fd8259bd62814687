// The loopback OpenAI-compatible model for tests: one home, re-exported from src/llm.

export type {
  LoopbackModel,
  LoopbackModelOptions,
  ReceivedRequest,
  Script,
  ScriptStep,
} from '../../src/llm/index.js'
export { startLoopbackModel } from '../../src/llm/index.js'
