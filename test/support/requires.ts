// The one rule for tests that need something from the environment (a tool such as bwrap or
// tmux, a build, a PostgreSQL server, root, a writable cgroup):
//   - available: the tests run;
//   - missing under CI (CI set to anything but '', '0' or 'false': CI=true, CI=1, ...):
//     a test named for the missing thing FAILS, whatever the reporter, and the tests
//     themselves still run (and fail on their own);
//   - missing elsewhere: the tests are skipped, with a warning naming what is missing.
// Every environment-dependent test goes through `itRequires` / `describeRequires`.

import { describe, it } from 'vitest'

/** Whether `value` (default: the CI variable) marks a CI run. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI
  return value !== undefined && !['', '0', 'false'].includes(value.trim().toLowerCase())
}

export const IN_CI = isCi()

export type RequirementOutcome = 'run' | 'fail' | 'skip'

/** What the rule says for a requirement that is (or is not) `available`, in or out of CI. */
export function requirementOutcome(available: boolean, inCi: boolean = IN_CI): RequirementOutcome {
  if (available) return 'run'
  return inCi ? 'fail' : 'skip'
}

const announced = new Set<string>()

/** Registers, once per `what` and file, the test that fails a CI run lacking `what`. */
function failMissing(what: string): void {
  if (announced.has(what)) return
  announced.add(what)
  it(`CI requires ${what}, which is missing here`, () => {
    throw new Error(`${what} is missing, and CI (CI=${process.env.CI}) must run every test that needs it`)
  })
}

function warnSkipped(what: string): void {
  if (announced.has(what)) return
  announced.add(what)
  console.warn(`skipping tests that need ${what} (missing here; under CI they fail)`)
}

/** `it` when `available`; under CI also a failing test naming `what`; otherwise `it.skip`, with a warning. */
export function itRequires(available: boolean, what: string): typeof it {
  const outcome = requirementOutcome(available)
  if (outcome === 'fail') failMissing(what)
  if (outcome !== 'skip') return it
  warnSkipped(what)
  return it.skip as unknown as typeof it
}

/** `describe` when `available`; under CI also a failing test naming `what`; otherwise `describe.skip`, with a warning. */
export function describeRequires(available: boolean, what: string): typeof describe.skip {
  const outcome = requirementOutcome(available)
  if (outcome === 'fail') failMissing(what)
  if (outcome !== 'skip') return describe as typeof describe.skip
  warnSkipped(what)
  return describe.skip
}
