import { defineConfig } from 'vitest/config'
import { selectedTargets, TARGETS } from './stryker.config.mjs'

// The tests StrykerJS runs against mutants (`npm run mutation`): those of the mutated files
// only (TARGETS in stryker.config.mjs), never the whole suite. Stryker runs them in one
// worker thread and, per mutant, only the tests that cover it.
const targets = TARGETS as Record<string, string[]>
export default defineConfig({
  test: {
    include: [...new Set(selectedTargets().flatMap((file: string) => targets[file] ?? []))],
    // As in the main suite: a busy machine must not fail a test that passes its conditions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 15_000 } },
  },
})
