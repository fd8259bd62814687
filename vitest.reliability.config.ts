import { defineConfig } from 'vitest/config'

// The standing reliability suite (test/reliability/, `npm run test:reliability`): crash,
// fault, concurrency, hostile-id and secret-scrub trials, sized by RELIABILITY_SIZE
// (`ci`, the default, or `full`). Figures: RELIABILITY.md.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    // A full-size trial (200 kill points, 100,000 ids on four backends) can take half an hour on a busy 2-core machine.
    testTimeout: process.env.RELIABILITY_SIZE === 'full' ? 3_600_000 : 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time: the trials time real processes on two cores.
    fileParallelism: false,
    reporters: ['default', './test/support/ci-skip-guard.ts'],
  },
})
