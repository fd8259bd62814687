// A real harness for integration tests: the composition root on a temporary home,
// pointed at a loopback OpenAI-compatible server that plays a script.

import { afterEach } from 'vitest'
import type { DshConfigFile } from '../../src/config/index.js'
import { resolveConfig, validateConfig } from '../../src/config/index.js'
import { createHarness, type Harness, type HarnessOptions } from '../../src/harness/index.js'
import {
  type LoopbackModel,
  type Script,
  type StrictOptions,
  startLoopbackModel,
  type WebToolsStandIn,
} from '../../src/llm/index.js'
import { createTempDir, removeTempDir } from './temp-dir.js'

export interface TestHarnessOptions {
  script?: Script
  backend?: 'jsonl' | 'sqlite' | 'memory'
  /** Reuse a home (two runs on the same root). Default: a fresh temporary folder. */
  home?: string
  /** Extra config fields (validated like a config file). */
  config?: Record<string, unknown>
  /** Serve DeepSeek's Search and Fetch endpoints from the loopback model too. */
  webTools?: WebToolsStandIn
  /** The front end's permission settings, as `dsh run`/chat pass them. */
  permissions?: HarnessOptions['permissions']
  /** How project folders are trusted (default: interactive, nobody to ask). */
  trust?: HarnessOptions['trust']
  /** The strict stand-in's options (a context window, say). Default: strict with no window. */
  strict?: StrictOptions
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
  const model = await startLoopbackModel(options.script ?? [], {
    strict: options.strict ?? true,
    ...(options.webTools ? { webTools: options.webTools } : {}),
  })
  const file = validateConfig('test-config', {
    dshHome: home,
    persistence: { backend: options.backend ?? 'jsonl' },
    model: { maxRetries: 2 },
    // Language servers are heavy: only the tests that ask for them (config.lsp) start any.
    lsp: false,
    ...options.config,
  }) as DshConfigFile
  const harness = await createHarness({
    config: resolveConfig(file, {}),
    model: { baseUrl: model.baseUrl, apiKey: 'test-key' },
    ...(options.trust ? { trust: options.trust } : {}),
    ...(options.permissions ? { permissions: options.permissions } : {}),
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
