// The loopback OpenAI-compatible model for tests: one home, re-exported from src/llm, and
// `useLoopbackModels`, which closes every model a test started once the test ends.

import { afterEach } from 'vitest'
import {
  type LoopbackModel,
  type LoopbackModelOptions,
  type Script,
  startLoopbackModel,
} from '../../src/llm/index.js'

export type {
  LoopbackModel,
  LoopbackModelOptions,
  ReceivedRequest,
  Script,
  ScriptStep,
} from '../../src/llm/index.js'
export { startLoopbackModel } from '../../src/llm/index.js'

/**
 * Call at the top of a test file (or describe block): returns `start(script, options)`,
 * which starts a loopback model that is closed after the current test (every one it
 * started, in reverse order). Its `close()` may also be called early, and is idempotent.
 */
export function useLoopbackModels(): (
  script?: Script,
  options?: LoopbackModelOptions,
) => Promise<LoopbackModel> {
  const open: LoopbackModel[] = []
  afterEach(async () => {
    while (open.length > 0) await open.pop()!.close()
  })
  return async (script = [], options = {}) => {
    const model = await startLoopbackModel(script, options)
    // A test may close its model early (to start another); the close after it is then a no-op.
    const close = model.close.bind(model)
    let closing: Promise<void> | undefined
    model.close = () => (closing ??= close())
    open.push(model)
    return model
  }
}
