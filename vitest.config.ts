import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // expect.poll waits for a condition; its 1 s default is a tight deadline on a busy machine.
    expect: { poll: { timeout: 15_000 } },
    // Under CI a skipped test fails the run (test/support/ci-skip-guard.ts; the rule: requires.ts).
    reporters: ['default', './test/support/ci-skip-guard.ts'],
  },
})
