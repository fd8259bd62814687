// The spill store: files kept with their session under the harness home, private modes,
// hostile ids kept inside the root, removal with the session; and bash output spilled
// there stays readable after the harness exits and on resume.

import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { SpillStore } from '../../src/spill/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { fc } from '../support/property.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-spill-')

async function store(home: string): Promise<SpillStore> {
  const ctx = new Context()
  await ctx.plugin(SpillStore, { home }).await()
  return ctx.get('spill')!
}

describe('SpillStore', () => {
  it('writes private files in the session folder under <home>/spill and removes them with the session', async () => {
    const home = tempDir()
    const spill = await store(home)
    const path = await spill.write('s-1', 'mcp result/x', 'hello')
    expect(path.startsWith(`${join(home, 'spill', 's-1')}/`)).toBe(true)
    expect(path).toMatch(/-mcp_result_x\.txt$/)
    expect(readFileSync(path, 'utf8')).toBe('hello')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(join(home, 'spill', 's-1')).mode & 0o777).toBe(0o700)
    const other = await spill.write('s-2', 'x', 'keep')
    await spill.remove('s-1')
    expect(existsSync(path)).toBe(false)
    expect(readFileSync(other, 'utf8')).toBe('keep')
    expect(() => spill.dirFor('')).toThrow(/non-empty/)
  })

  it('keeps every id inside the spill root, one folder per id', async () => {
    const spill = await store(tempDir())
    const seen = new Map<string, string>()
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60, unit: 'binary' }), (id) => {
        if (id.includes('\u0000')) return
        const dir = spill.dirFor(id)
        const rel = relative(spill.root, dir)
        expect(rel.startsWith('..') || rel.includes('/') || rel === '').toBe(false)
        const before = seen.get(dir)
        if (before !== undefined) expect(before).toBe(id)
        seen.set(dir, id)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('bash output spill', () => {
  const start = useTestHarnesses()

  it('spills to the session folder; the path in the log is still valid after exit and on resume', async () => {
    const command = "head -c 40000 /dev/zero | tr '\\0' a; echo END"
    const test = await start({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command } }] },
        { text: 'done' },
        { text: 'again' },
      ],
    })
    const agent = await test.harness.agents.create({ sessionId: 'spilled', meta: { cwd: test.home } })
    await agent.prompt('make noise')
    const result = agent.session.events.find((event) => event.type === 'tool/result')!.data as {
      content: string
    }
    const path = /\[output truncated; full output: (.+)\]/.exec(result.content)?.[1]
    expect(path, result.content.slice(-300)).toBeDefined()
    expect(path!.startsWith(`${join(test.home, 'spill', 'spilled')}/`)).toBe(true)
    await test.harness.dispose()
    expect(readFileSync(path!, 'utf8')).toBe(`${'a'.repeat(40000)}END\n`)

    const again = await start({ home: test.home, script: [{ text: 'still there' }] })
    const resumed = await again.harness.agents.resume({ resumeSessionId: 'spilled' })
    await resumed.prompt('where is it?')
    expect(existsSync(path!)).toBe(true)
  })
})
