// Instruction discovery (AGENTS.md over CLAUDE.md per folder, root to cwd, the user's home
// file first, never above the project root) and the re-read on resume.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { discoverInstructionFiles } from '../../src/instructions/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-instr-')
const start = useTestHarnesses()

it('takes one file per folder from the project root down, AGENTS.md before CLAUDE.md', () => {
  const outer = tempDir()
  const root = join(outer, 'repo')
  const deep = join(root, 'a', 'b')
  mkdirSync(join(root, '.git'), { recursive: true })
  mkdirSync(deep, { recursive: true })
  writeFileSync(join(outer, 'AGENTS.md'), 'above the project: never read')
  writeFileSync(join(root, 'CLAUDE.md'), 'root claude')
  writeFileSync(join(root, 'a', 'AGENTS.md'), 'a agents')
  writeFileSync(join(root, 'a', 'CLAUDE.md'), 'a claude: shadowed')
  writeFileSync(join(deep, 'AGENTS.md'), 'b agents')
  const home = tempDir()
  writeFileSync(join(home, 'AGENTS.md'), 'home')
  expect(discoverInstructionFiles(deep, home).map((f) => [f.text, f.scope])).toEqual([
    ['home', 'user'],
    ['root claude', 'project'],
    ['a agents', 'project'],
    ['b agents', 'project'],
  ])
  expect(discoverInstructionFiles(join(root, 'a'), undefined).map((f) => f.text)).toEqual([
    'root claude',
    'a agents',
  ])
})

it('re-reads the files on resume and logs them only when they changed', async () => {
  const cwd = tempDir()
  writeFileSync(join(cwd, 'AGENTS.md'), 'version 1')
  const home = tempDir()
  const first = await start({ home })
  await first.harness.agents.create({ sessionId: 'instr', meta: { cwd } })
  await first.close()

  const loaded = async () => {
    const again = await start({ home })
    const agent = await again.harness.agents.resume({ resumeSessionId: 'instr' })
    const texts = agent.session.events
      .filter((e) => e.type === 'instructions/loaded')
      .map((e) => (e.data as { text: string }).text)
    await again.close()
    return texts
  }
  expect(await loaded()).toHaveLength(1)
  writeFileSync(join(cwd, 'AGENTS.md'), 'version 2')
  const texts = await loaded()
  expect(texts).toHaveLength(2)
  expect(texts[1]).toContain('version 2')
})
