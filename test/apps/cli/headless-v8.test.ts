// The V8 flags the bin sets for `dsh run` (src/apps/cli/headless-v8.cjs): this Node knows each
// one (V8 would print "unrecognized flag" on the user's terminal), and the young generation
// stays at its initial size under them, where it grows without them — the resident memory
// the headless turn's bench row counts on (bench/RESULTS.md).

import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const MODULE = resolve('src/apps/cli/headless-v8.cjs')
const { HEADLESS_V8_FLAGS } = createRequire(import.meta.url)(MODULE) as { HEADLESS_V8_FLAGS: string[] }

/** The new space's size in MB after allocating 64 MB of objects, a quarter of which survive a while. */
function youngGenerationMb(applyFlags: boolean): { mb: number; stderr: string } {
  const script = `
    const { getHeapSpaceStatistics } = require('node:v8')
    if (${applyFlags}) require(${JSON.stringify(MODULE)}).useHeadlessV8Flags()
    const kept = []
    for (let i = 0; i < 64 * 1024; i++) {
      const item = { index: i, text: 'x'.repeat(1000 + (i % 7)) }
      if (i % 4 === 0) kept.push(item)
      if (kept.length > 2000) kept.splice(0, 1000)
    }
    const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
    process.stdout.write(String(space.space_size / 1048576))`
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  expect(result.status, result.stderr).toBe(0)
  return { mb: Number(result.stdout), stderr: result.stderr }
}

describe('the V8 flags of a headless run', () => {
  it('are flags this Node knows, so setting them prints nothing', () => {
    expect(HEADLESS_V8_FLAGS.length).toBeGreaterThan(0)
    expect(youngGenerationMb(true).stderr).toBe('')
  })

  it('keep the young generation at its initial size, which grows without them', () => {
    expect(youngGenerationMb(false).mb).toBeGreaterThan(2)
    expect(youngGenerationMb(true).mb).toBeLessThanOrEqual(2)
  })
})
