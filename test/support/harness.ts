// A real harness for integration tests: the composition root on a temporary home,
// pointed at a loopback OpenAI-compatible server that plays a script.

import type { DshConfigFile } from '../../src/config/index.js'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { createHarness, type Harness } from '../../src/harness/index.js'
import { type LoopbackModel, type Script, startLoopbackModel } from '../../src/llm/index.js'
import { createTempDir, removeTempDir } from './temp-dir.js'

export interface TestHarnessOptions {
  script?: Script
  backend?: 'jsonl' | 'sqlite' | 'memory'
  /** Reuse a home (two runs on the same root). Default: a fresh temporary folder. */
  home?: string
  /** Extra config fields (validated like a config file). */
  config?: Record<string, unknown>
}

export interface TestHarness {
  harness: Harness
  model: LoopbackModel
  home: string
  /** Disposes the harness and stops the model server (the home is kept when it was given). */
  close(): Promise<void>
}

export async function startTestHarness(options: TestHarnessOptions = {}): Promise<TestHarness> {
  const home = options.home ?? createTempDir()
  const model = await startLoopbackModel(options.script ?? [])
  const file = validateConfig('test-config', {
    dshHome: home,
    persistence: { backend: options.backend ?? 'jsonl' },
    model: { maxRetries: 2 },
    ...options.config,
  }) as DshConfigFile
  const harness = await createHarness({
    config: resolveConfig(file, {}),
    model: { baseUrl: model.baseUrl, apiKey: 'test-key' },
  })
  return {
    harness,
    model,
    home,
    async close() {
      await harness.dispose()
      await model.close()
      if (!options.home) removeTempDir(home)
    },
  }
}

/** Kept for callers written before temp-dir.ts: the same helper. */
export { createTempDir as makeTempHome } from './temp-dir.js'
