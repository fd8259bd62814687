// Tests that need a tool or a build: skipped (with a warning) on a developer machine
// without it, but run — and so fail — under CI=true, where `.ci/run` provides it.

import { it } from 'vitest'

export const IN_CI = process.env.CI === 'true'

/** `it` when `available` or under CI; otherwise `it.skip`, with a warning naming `what`. */
export function itRequires(available: boolean, what: string): typeof it {
  if (available || IN_CI) return it
  console.warn(`skipping tests that need ${what} (CI runs them)`)
  return it.skip as unknown as typeof it
}
