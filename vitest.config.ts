import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A timeout only catches a hang: tests wait for conditions, not for time. On 2 cores busy
    // with other work (two `yes` per core), a test that starts a dozen Node processes or a
    // PostgreSQL fleet took over 30 s; a per-test figure below this one would be a deadline again.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // expect.poll waits for a condition; its 1 s default is a tight deadline on a busy machine.
    expect: { poll: { timeout: 60_000 } },
    // Under CI a skipped test fails the run (test/support/ci-skip-guard.ts; the rule: requires.ts).
    reporters: ['default', './test/support/ci-skip-guard.ts'],
  },
})
