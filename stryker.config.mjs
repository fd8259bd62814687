// The standing mutation check (`npm run mutation`, not part of CI): StrykerJS mutates the
// seed-promise and security-critical files below and runs their tests against each mutant
// (vitest.mutation.config.ts takes the test list from TARGETS). Score and survivors: TESTING.md.
// A subset: DSH_MUTATE=src/permissions/bash-command.ts,src/apps/web/auth.ts npm run mutation

/** Each mutated file with the tests that must kill its mutants. */
export const TARGETS = {
  'src/permissions/bash-command.ts': ['test/permissions/rules.test.ts'],
  'src/apps/web/auth.ts': ['test/apps/web/web-auth.test.ts'],
  'src/tools/web/http/address-guard.ts': ['test/tools/web/address-guard.test.ts', 'test/tools/web/http-fetch.test.ts'],
  'src/persistence/jsonl/layout.ts': ['test/persistence/jsonl/layout.test.ts'],
  'src/usage/price-table.ts': ['test/usage/derive.test.ts', 'test/usage/ledger.test.ts'],
  'src/persistence/jsonl/log-store.ts': [
    'test/persistence/jsonl/files.test.ts',
    'test/persistence/jsonl/io-watch.test.ts',
    'test/persistence/jsonl/repair.test.ts',
    'test/persistence/jsonl/contract.test.ts',
    'test/persistence/jsonl/processes.test.ts',
    'test/persistence/jsonl/lock.test.ts',
    'test/history/search.test.ts',
    'test/persistence/jsonl/store-edges.test.ts',
    'test/attachments/session-images.test.ts',
  ],
  'src/persistence/jsonl/lock.ts': ['test/persistence/jsonl/lock.test.ts', 'test/persistence/jsonl/lock-race.test.ts'],
  'src/shell/env/registry.ts': ['test/shell/env/registry.test.ts'],
  'src/hooks/protocol/tool-hooks.ts': [
    'test/hooks/events.test.ts',
    'test/hooks/claude-code.test.ts',
    'test/hooks/bridge-contract.test.ts',
    'test/hooks/handler-contract.test.ts',
    'test/hooks/tool-hooks-gaps.test.ts',
  ],
  'src/shell/sandbox/bwrap.ts': ['test/shell/sandbox.test.ts', 'test/shell/sandbox-config.test.ts'],
  'src/llm/openai/request.ts': ['test/llm/request.test.ts', 'test/llm/deepseek-strict.test.ts'],
}

/** The files to mutate: DSH_MUTATE (comma-separated) or every target. */
export function selectedTargets(env = process.env) {
  const chosen = (env.DSH_MUTATE ?? '').split(',').map((file) => file.trim()).filter(Boolean)
  for (const file of chosen) if (!(file in TARGETS)) throw new Error(`DSH_MUTATE: ${file} is not in TARGETS of stryker.config.mjs`)
  return chosen.length > 0 ? chosen : Object.keys(TARGETS)
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: selectedTargets(),
  coverageAnalysis: 'perTest',
  // Two cores shared with other work: one test process at a time.
  concurrency: 1,
  timeoutMS: 60_000,
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
}
