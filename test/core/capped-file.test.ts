// The one capped reader for files dsh did not write, and the caps each project file gets:
// a file past its cap is refused before it is parsed, in one line naming the file; a
// server list past MAX_MCP_SERVERS is refused whole.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { validateConfig } from '../../src/config/index.js'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../../src/core/index.js'
import { loadHookFiles } from '../../src/hooks/index.js'
import { discoverInstructionFiles } from '../../src/instructions/index.js'
import { fromAcpServers, MAX_MCP_SERVERS, readProjectServers } from '../../src/mcp/index.js'
import { loadProjectPermissions } from '../../src/permissions/index.js'
import { discoverSkills } from '../../src/skills/index.js'
import { useTempDirs } from '../support/temp-dir.js'
import { thrownBy } from '../support/thrown.js'

const tempDir = useTempDirs()
const thrown = (run: () => unknown) => thrownBy(run) as Error & { code?: string }
const cap = { maxBytes: 16, what: 'test file', code: 'TEST_TOO_LARGE' }
/** One byte past the project cap: the smallest file each reader must refuse. */
const overCap = 'x'.repeat(MAX_PROJECT_FILE_BYTES + 1)

describe('readCappedText', () => {
  it('reads a file at the cap, and refuses one byte more naming the file, its size and the limit', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'fits'), 'é'.repeat(8))
    expect(readCappedText(join(dir, 'fits'), cap)).toBe('é'.repeat(8))
    writeFileSync(join(dir, 'big'), 'x'.repeat(17))
    const error = thrown(() => readCappedText(join(dir, 'big'), cap))
    expect(error).toMatchObject({ code: 'TEST_TOO_LARGE', userFacing: true })
    expect(error.message).toBe(`${join(dir, 'big')}: test file is 17 bytes; the limit is 16 (16 bytes)`)
  })

  it('stops reading a file without a size (a device) one byte past the cap', () => {
    expect(thrown(() => readCappedText('/dev/zero', cap)).message).toBe(
      '/dev/zero: test file is over 16 bytes; the limit is 16 (16 bytes)',
    )
  })

  it('throws a missing file as fs does, so callers keep their ENOENT handling', () => {
    expect(thrown(() => readCappedText(join(tempDir(), 'none'), cap))).toMatchObject({ code: 'ENOENT' })
  })
})

describe('project file caps', () => {
  it('refuses a .mcp.json past 1 MiB with one problem line and no server', () => {
    const root = tempDir()
    const text = `{"mcpServers":{},"pad":"${overCap}"}`
    writeFileSync(join(root, '.mcp.json'), text)
    const read = readProjectServers(root)!
    expect(read.servers).toEqual({})
    expect(read.problems).toEqual([
      `${join(root, '.mcp.json')}: MCP file is ${text.length} bytes; the limit is ${MAX_PROJECT_FILE_BYTES} (1 MiB); no servers loaded`,
    ])
  })

  it('refuses a server list past MAX_MCP_SERVERS whole, in .mcp.json, the config and ACP', () => {
    const root = tempDir()
    const many = Object.fromEntries(
      Array.from({ length: MAX_MCP_SERVERS + 1 }, (_, i) => [`s${i}`, { command: 'true' }]),
    )
    writeFileSync(join(root, '.mcp.json'), JSON.stringify({ mcpServers: many }))
    const read = readProjectServers(root)!
    expect(read.servers).toEqual({})
    expect(read.problems).toEqual([
      `${join(root, '.mcp.json')}: 101 MCP servers; the limit is 100; no servers loaded`,
    ])
    expect(thrown(() => validateConfig('/c.yaml', { mcpServers: many })).message).toBe(
      '/c.yaml: mcpServers: 101 MCP servers; the limit is 100',
    )
    expect(
      Object.keys(validateConfig('/c.yaml', { mcpServers: { a: { command: 'true' } } }).mcpServers),
    ).toEqual(['a'])
    const acp = Object.keys(many).map((name) => ({ name, command: 'true', args: [], env: [] }))
    expect(thrown(() => fromAcpServers(acp)).message).toBe(
      'ACP mcpServers: 101 MCP servers; the limit is 100',
    )
    expect(Object.keys(fromAcpServers(acp.slice(0, MAX_MCP_SERVERS)))).toHaveLength(MAX_MCP_SERVERS)
  })

  it('refuses a settings file past 1 MiB with an error naming it (its deny rules cannot be skipped)', () => {
    const root = tempDir()
    mkdirSync(join(root, '.claude'))
    const file = join(root, '.claude', 'settings.local.json')
    writeFileSync(file, `{"permissions":{"deny":["Bash"]},"pad":"${overCap}"}`)
    const error = thrown(() => loadProjectPermissions(root, true))
    expect(error).toMatchObject({ code: 'PERMISSION_SETTINGS_INVALID', userFacing: true })
    expect(error.message).toMatch(
      new RegExp(`^${file}: settings file is \\d+ bytes; the limit is 1048576 \\(1 MiB\\)$`),
    )
  })

  it('registers no hooks from a hook file past 1 MiB, with one warning naming it', () => {
    const file = join(tempDir(), 'hooks.json')
    const text = `{"hooks":{},"pad":"${overCap}"}`
    writeFileSync(file, text)
    const warnings: string[] = []
    expect(loadHookFiles([file], (message) => warnings.push(message)).size).toBe(0)
    expect(warnings).toEqual([
      `${file}: hook file is ${text.length} bytes; the limit is ${MAX_PROJECT_FILE_BYTES} (1 MiB); no hooks registered from it`,
    ])
  })

  it('leaves out an instruction file past 1 MiB and says so; a smaller one still loads', () => {
    const root = tempDir()
    mkdirSync(join(root, '.git'))
    mkdirSync(join(root, 'sub'))
    writeFileSync(join(root, 'AGENTS.md'), overCap)
    writeFileSync(join(root, 'sub', 'AGENTS.md'), 'be brief')
    const problems: string[] = []
    const files = discoverInstructionFiles(join(root, 'sub'), undefined, problems)
    expect(files.map((file) => file.path)).toEqual([join(root, 'sub', 'AGENTS.md')])
    expect(problems).toEqual([
      `${join(root, 'AGENTS.md')}: instruction file is ${MAX_PROJECT_FILE_BYTES + 1} bytes; the limit is ${MAX_PROJECT_FILE_BYTES} (1 MiB); not loaded`,
    ])
  })

  it('skips a SKILL.md past 1 MiB with a problem naming it', () => {
    const home = tempDir()
    mkdirSync(join(home, 'skills', 'huge'), { recursive: true })
    writeFileSync(join(home, 'skills', 'huge', 'SKILL.md'), `---\ndescription: d\n---\n${overCap}`)
    const problems: { path: string; message: string }[] = []
    expect(discoverSkills({ home, cwd: tempDir(), projectTrusted: false }, problems)).toEqual([])
    expect(problems[0]?.message).toMatch(
      /SKILL\.md: skill file is \d+ bytes; the limit is 1048576 \(1 MiB\); skipped$/,
    )
  })
})
