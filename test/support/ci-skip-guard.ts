// A second net behind the rule of requires.ts (which fails a CI run lacking a tool by
// itself, whatever the reporter): this reporter fails a CI run in which any test was
// skipped at all (an `it.skip` left behind, a `skipIf`). CI is judged by the same isCi().
// The one allowed skip is a case that cannot hold as root; it says so in its name.

import type { Reporter, TestModule } from 'vitest/node'
import { isCi } from './requires.js'

const ALLOWED = /\(skipped as root:/

export default class CiSkipGuard implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!isCi()) return
    const skipped: string[] = []
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.result().state === 'skipped' && !ALLOWED.test(test.name)) {
          skipped.push(`${module.moduleId}: ${test.fullName}`)
        }
      }
    }
    if (skipped.length === 0) return
    process.stderr.write(
      `\nCI=${process.env.CI}: ${skipped.length} test(s) skipped; CI must run every test:\n`,
    )
    for (const line of skipped) process.stderr.write(`  ${line}\n`)
    process.exitCode = 1
  }
}
