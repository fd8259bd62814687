// Python through the real pyright language server: diagnostics of a file with a type error,
// the new-error feedback after a change, and definition across files.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { useTestHarnesses } from '../support/harness.js'
import { HAVE_PYRIGHT, lspTestConfig } from '../support/lsp.js'
import { groupGone } from '../support/processes.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-lsp-py-')

itRequires(HAVE_PYRIGHT, 'pyright')(
  'pyright reports a type error; feedback tells new from old',
  { timeout: 300_000 },
  async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "p"\nversion = "0"\n')
    const lib = join(dir, 'lib.py')
    const app = join(dir, 'app.py')
    writeFileSync(lib, 'def double(x: int) -> int:\n    return x * 2\n')
    const old = 'from lib import double\n\nn: int = double(2)\nbad: int = "old"\n'
    writeFileSync(app, old)
    const { harness } = await start({ config: { lsp: lspTestConfig() } })
    const lsp = harness.ctx.lsp

    const diagnostics = await lsp.fileDiagnostics(app, dir)
    expect(diagnostics).toMatchObject({ ok: true })
    const errors = diagnostics.ok ? diagnostics.value.filter((d) => d.severity === 'error') : []
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ path: app, line: 4, source: 'Pyright' })
    expect(errors[0]!.message).toContain('"Literal[\'old\']" is not assignable to "int"')

    // The old error stays; only the one the change brings is new.
    const changed = `${old}s: str = double(3)\n`
    writeFileSync(app, changed)
    const after = await lsp.afterEdit(app, dir, old, changed)
    expect(after.ok && after.value.file.map((d) => [d.line, d.severity])).toEqual([[5, 'error']])

    const definition = await lsp.definition(app, dir, { line: 2, character: 10 })
    expect(definition).toMatchObject({ ok: true, value: [{ path: lib, line: 1, column: 5 }] })

    const [server] = lsp.status()
    expect(server).toMatchObject({ id: 'pyright', root: dir, state: 'running' })
    await harness.dispose()
    await groupGone(server!.pid!)
  },
)
