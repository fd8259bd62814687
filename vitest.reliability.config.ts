import { defineConfig } from 'vitest/config'

// The standing reliability suite (test/reliability/, `npm run test:reliability`): crash,
// fault, concurrency, hostile-id and secret-scrub trials, sized by RELIABILITY_SIZE
// (`ci`, the default, or `full`). Figures: RELIABILITY.md.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time: the trials time real processes on two cores.
    fileParallelism: false,
    reporters: ['default', './test/support/ci-skip-guard.ts'],
  },
})
