// The plugin's edges: `lsp: false`, config validation, unloading (tools gone, servers
// stopped), and the LSP libraries staying unloaded until a server starts.

import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { validateConfig } from '../../src/config/index.js'
import { DEFAULT_LSP_SETTINGS, LSP_TOOL_NAMES, lspPlugin, lspSchemas } from '../../src/lsp/index.js'
import { ToolRegistry } from '../../src/tools/index.js'
import { fakeLspServer } from '../support/fake-lsp.js'
import { useTestHarnesses } from '../support/harness.js'
import { groupGone, liveGroupMembers } from '../support/processes.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-lsp-plugin-')

describe('lsp plugin', { timeout: 60_000 }, () => {
  it('lsp: false registers no tools and no service', async () => {
    const { harness } = await start({ config: { lsp: false } })
    for (const name of LSP_TOOL_NAMES) expect(harness.ctx.tools.get(name)).toBeUndefined()
    expect(harness.ctx.get('lsp')).toBeUndefined()
  })

  it('is on by default with the documented settings; a new server needs command and extensions', () => {
    expect(validateConfig('t', {}).lsp).toEqual(DEFAULT_LSP_SETTINGS)
    expect(DEFAULT_LSP_SETTINGS).toMatchObject({ diagnosticsWaitMs: 3000, maxRestarts: 3, feedback: true })
    expect(() => validateConfig('t', { lsp: { servers: { mine: { command: 'x' } } } })).toThrow(
      /lsp.servers.mine is not a preset, so it needs command and extensions/,
    )
    expect(
      lspSchemas().settings.parse({ servers: { mine: { command: 'x', extensions: ['.Foo'] } } }).servers.mine
        ?.extensions,
    ).toEqual(['foo'])
  })

  it('unloading removes the tools and the service and stops the servers', async () => {
    const dir = tempDir()
    const fake = fakeLspServer(dir, 'normal')
    const file = join(dir, 'a.fake')
    writeFileSync(file, 'BAD\n')
    const ctx = new Context()
    await ctx.plugin(ToolRegistry).await()
    const fiber = ctx.plugin(lspPlugin, {
      settings: {
        ...DEFAULT_LSP_SETTINGS,
        servers: { fake: fake.entry as never },
        diagnosticsWaitMs: 60_000,
      },
    })
    await fiber.await()
    expect(LSP_TOOL_NAMES.map((name) => ctx.tools.get(name)?.name)).toEqual([...LSP_TOOL_NAMES])
    expect(await ctx.lsp.fileDiagnostics(file, dir)).toMatchObject({ ok: true, value: [{ line: 1 }] })
    const pid = Number(readFileSync(fake.pidFile, 'utf8'))
    expect(liveGroupMembers(pid)).toEqual([pid])
    await fiber.dispose()
    for (const name of LSP_TOOL_NAMES) expect(ctx.tools.get(name)).toBeUndefined()
    expect(ctx.get('lsp')).toBeUndefined()
    await groupGone(pid)
  })

  it('creating a harness loads no LSP library; the first server start does (built dist)', () => {
    const root = resolve(import.meta.dirname, '../..')
    const dist = join(root, 'dist/src')
    if (!existsSync(join(dist, 'lsp/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first')
    const dir = tempDir()
    const fake = fakeLspServer(dir, 'normal')
    const script = `
      import { createRequire } from 'node:module'
      const require = createRequire(import.meta.url)
      const loaded = () => Object.keys(require.cache).some((k) => k.includes('vscode-jsonrpc'))
      const { createHarness } = await import(${JSON.stringify(join(dist, 'harness/index.js'))})
      const { resolveConfig, validateConfig } = await import(${JSON.stringify(join(dist, 'config/index.js'))})
      const [dir, entry] = process.argv.slice(1)
      const file = validateConfig('t', {
        dshHome: dir, persistence: { backend: 'memory' }, lsp: { servers: { fake: JSON.parse(entry) } },
      })
      const harness = await createHarness({ config: resolveConfig(file, {}) })
      const before = loaded()
      const found = await harness.ctx.lsp.manager.lookup(dir + '/a.fake', dir)
      const after = loaded()
      await harness.dispose()
      console.log(JSON.stringify({ hasService: true, before, started: found.kind, after }))
    `
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', script, dir, JSON.stringify(fake.entry)],
      {
        cwd: root,
        encoding: 'utf8',
      },
    )
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({
      hasService: true,
      before: false,
      started: 'ready',
      after: true,
    })
  })
})
