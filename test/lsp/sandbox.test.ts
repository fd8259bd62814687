// Under the sandbox a language server runs in bubblewrap: no network (only loopback, down)
// and a read-only workspace; without it, the same server sees the machine's interfaces.

import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { fakeLspServer } from '../support/fake-lsp.js'
import { useTestHarnesses } from '../support/harness.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-lsp-sandbox-')
const it = itRequires(existsSync('/usr/bin/bwrap'), 'bubblewrap (/usr/bin/bwrap)')

async function seen(sandbox: string): Promise<string> {
  const dir = tempDir()
  const fake = fakeLspServer(dir, 'netcheck')
  writeFileSync(join(dir, 'a.fake'), 'x\n')
  const { harness } = await start({
    config: {
      sandbox,
      lsp: { servers: { fake: fake.entry }, diagnosticsWaitMs: 60_000, diagnosticsSettleMs: 50 },
    },
  })
  const answer = await harness.ctx.lsp.fileDiagnostics(join(dir, 'a.fake'), dir)
  return answer.ok ? (answer.value[0]?.message ?? '') : answer.note
}

it('a server under the sandbox has no network and cannot write the workspace', {
  timeout: 60_000,
}, async () => {
  expect(await seen('workspace-write')).toBe('interfaces=lo writable=false')
  const outside = await seen('off')
  expect(outside).toContain('writable=true')
})
