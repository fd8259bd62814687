// A language server found in the project's own node_modules/.bin is project content the
// model can write (or a cloned repository can bring): on the host it runs only in a trusted
// folder. Under the sandbox it runs read-only and without network, as a command would.

import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_LSP_SETTINGS, lspPlugin } from '../../src/lsp/index.js'
import { ToolRegistry } from '../../src/tools/index.js'
import { fingerprintProjectConfig, ProjectTrustService, ProjectTrustStore } from '../../src/trust/index.js'
import { fakeLspServer } from '../support/fake-lsp.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-lsp-trust-')
const fibers: Fiber[] = []
afterEach(async () => {
  // Unloading stops the servers.
  for (const fiber of fibers.splice(0)) await fiber.dispose()
})

/** A project (a git root) whose node_modules/.bin has `fake-ls`, which notes that it ran. */
function projectWithOwnServer() {
  const project = tempDir()
  mkdirSync(join(project, '.git'))
  const fake = fakeLspServer(tempDir(), 'normal')
  const ran = join(tempDir(), 'ran')
  const bin = join(project, 'node_modules', '.bin')
  mkdirSync(bin, { recursive: true })
  const [script, mode, state] = fake.entry.args as string[]
  writeFileSync(
    join(bin, 'fake-ls'),
    `#!/bin/sh\necho ran > '${ran}'\nexec '${process.execPath}' '${script}' '${mode}' '${state}'\n`,
  )
  chmodSync(join(bin, 'fake-ls'), 0o755)
  const file = join(project, 'a.fake')
  writeFileSync(file, 'BAD\n')
  return { project, file, ran }
}

async function startLsp(trust: 'none' | 'headless') {
  const home = tempDir()
  const ctx = new Context()
  await ctx.plugin(ToolRegistry).await()
  if (trust === 'headless') await ctx.plugin(ProjectTrustService, { home, frontEnd: 'headless' }).await()
  const settings = {
    ...DEFAULT_LSP_SETTINGS,
    servers: { fake: { command: 'fake-ls', args: [], extensions: ['fake'], rootMarkers: [] } as never },
  }
  const fiber = ctx.plugin(lspPlugin, { settings })
  fibers.push(fiber)
  await fiber.await()
  return { ctx, store: new ProjectTrustStore(home) }
}

describe("a language server from the project's node_modules/.bin", { timeout: 60_000 }, () => {
  it('does not run in a folder that is not trusted, and says why', async () => {
    const { project, file, ran } = projectWithOwnServer()
    for (const trust of ['none', 'headless'] as const) {
      const { ctx } = await startLsp(trust)
      const answer = await ctx.lsp.fileDiagnostics(file, project)
      expect(answer.ok).toBe(false)
      expect(JSON.stringify(answer)).toContain(
        `${join(project, 'node_modules', '.bin', 'fake-ls')} is the project's own program, and the folder is not trusted`,
      )
      expect(existsSync(ran)).toBe(false)
    }
  })

  it('runs once the folder is trusted with its present configuration', async () => {
    const { project, file, ran } = projectWithOwnServer()
    const { ctx, store } = await startLsp('headless')
    store.trust(project, Date.now(), fingerprintProjectConfig(project))
    expect(await ctx.lsp.fileDiagnostics(file, project)).toMatchObject({ ok: true, value: [{ line: 1 }] })
    expect(existsSync(ran)).toBe(true)
  })
})
