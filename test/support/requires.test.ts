// The one rule for environment-dependent tests (requires.ts): any truthy CI value makes a
// missing tool fail the run, with the default reporter alone; outside CI it is skipped
// with a warning.

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isCi, requirementOutcome } from './requires.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))

function runFixture(ci: string | undefined) {
  const env = { ...process.env }
  delete env.CI
  if (ci !== undefined) env.CI = ci
  const run = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/support/fixtures/requires.vitest.config.ts'],
    { cwd: repo, env, encoding: 'utf8', timeout: 120_000 },
  )
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

describe('the requirement rule', () => {
  it('counts any CI value but empty, 0 and false as CI', () => {
    for (const value of ['true', '1', 'yes', 'TRUE', 'github']) expect(isCi({ CI: value }), value).toBe(true)
    for (const value of [undefined, '', '0', 'false', 'False', ' '])
      expect(isCi({ CI: value }), String(value)).toBe(false)
  })

  it('runs what is available, fails what is missing under CI, skips it elsewhere', () => {
    expect(requirementOutcome(true, true)).toBe('run')
    expect(requirementOutcome(true, false)).toBe('run')
    expect(requirementOutcome(false, true)).toBe('fail')
    expect(requirementOutcome(false, false)).toBe('skip')
  })

  it('fails a CI=1 run lacking a tool with the default reporter only, and skips with a warning outside CI', () => {
    for (const ci of ['1', 'true']) {
      const inCi = runFixture(ci)
      expect(inCi.status, inCi.output).toBe(1)
      expect(inCi.output).toContain('CI requires the-missing-tool, which is missing here')
      expect(inCi.output).toContain('CI requires the-missing-server, which is missing here')
    }
    const outside = runFixture(undefined)
    expect(outside.status, outside.output).toBe(0)
    expect(outside.output).toContain('skipping tests that need the-missing-tool')
    expect(outside.output).toContain('skipping tests that need the-missing-server')
  }, 120_000)
})
