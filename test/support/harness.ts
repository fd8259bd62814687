// A real harness for integration tests: the composition root on a temporary home,
// pointed at a loopback OpenAI-compatible server that plays a script.

import { afterEach } from 'vitest'
import type { DshConfigFile } from '../../src/config/index.js'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { createHarness, type Harness, type HarnessOptions } from '../../src/harness/index.js'
import { type LoopbackModel, type Script, startLoopbackModel } from '../../src/llm/index.js'
import { createTempDir, removeTempDir } from './temp-dir.js'

export interface TestHarnessOptions {
  script?: Script
  backend?: 'jsonl' | 'sqlite' | 'memory'
  /** Reuse a home (two runs on the same root). Default: a fresh temporary folder. */
  home?: string
  /** Extra config fields (validated like a config file). */
  config?: Record<string, unknown>
  /** The front end's permission settings, as `dsh run`/chat pass them. */
  permissions?: HarnessOptions['permissions']
  /** The front end's trust check for project `.mcp.json` servers (default: none load). */
  projectTrust?: HarnessOptions['projectTrust']
}

export interface TestHarness {
  harness: Harness
  model: LoopbackModel
  home: string
  /** Disposes the harness and stops the model server (the home is kept when it was given). Idempotent. */
  close(): Promise<void>
}

export async function startTestHarness(options: TestHarnessOptions = {}): Promise<TestHarness> {
  const home = options.home ?? createTempDir()
  const model = await startLoopbackModel(options.script ?? [], { strict: true })
  const file = validateConfig('test-config', {
    dshHome: home,
    persistence: { backend: options.backend ?? 'jsonl' },
    model: { maxRetries: 2 },
    ...options.config,
  }) as DshConfigFile
  const harness = await createHarness({
    config: resolveConfig(file, {}),
    model: { baseUrl: model.baseUrl, apiKey: 'test-key' },
    ...(options.permissions ? { permissions: options.permissions } : {}),
    ...(options.projectTrust ? { projectTrust: options.projectTrust } : {}),
  })
  let closed = false
  return {
    harness,
    model,
    home,
    async close() {
      if (closed) return
      closed = true
      await harness.dispose()
      await model.close()
      if (!options.home) removeTempDir(home)
    },
  }
}

/**
 * Call at the top of a test file: returns `start(options)`, which starts a test harness
 * that is closed after the current test.
 */
export function useTestHarnesses(): (options?: TestHarnessOptions) => Promise<TestHarness> {
  const open: TestHarness[] = []
  afterEach(async () => {
    while (open.length > 0) await open.pop()!.close()
  })
  return async (options = {}) => {
    const test = await startTestHarness(options)
    open.push(test)
    return test
  }
}
