// A vitest reporter that fails the run when a test was skipped under CI=true: a test
// that lacks its tool (tmux, bwrap, a build) must fail in CI, never pass by skipping.
// The one allowed skip is a case that cannot hold as root; it says so in its name.

import type { Reporter, TestModule } from 'vitest/node'

const ALLOWED = /\(skipped as root:/

export default class CiSkipGuard implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (process.env.CI !== 'true') return
    const skipped: string[] = []
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.result().state === 'skipped' && !ALLOWED.test(test.name)) {
          skipped.push(`${module.moduleId}: ${test.fullName}`)
        }
      }
    }
    if (skipped.length === 0) return
    process.stderr.write(`\nCI=true: ${skipped.length} test(s) skipped; CI must run every test:\n`)
    for (const line of skipped) process.stderr.write(`  ${line}\n`)
    process.exitCode = 1
  }
}
