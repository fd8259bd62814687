// A full turn through the loopback model on a small TypeScript project with the real
// typescript-language-server: an edit that introduces a type error gets it in its result,
// the fix clears it; definition, references, hover and symbols answer; after the harness
// stops no server process is left (process-group check).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { ScriptOutcome, ScriptRequest } from '../../src/llm/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { HAVE_TSLS, lspTestConfig, writeTsProject } from '../support/lsp.js'
import { groupGone, liveGroupMembers } from '../support/processes.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-lsp-ts-')

function lastToolText(request: ScriptRequest): string {
  const last = request.messages.at(-1)!
  return typeof last.content === 'string' ? last.content : ''
}

itRequires(HAVE_TSLS, 'typescript-language-server')(
  'an edit that breaks types gets the new error, the fix clears it; lsp tools answer',
  { timeout: 300_000 },
  async () => {
    const project = tempDir()
    const { math } = writeTsProject(project)
    const results: string[] = []
    const keep = (outcome: ScriptOutcome) => (request: ScriptRequest) => {
      results.push(lastToolText(request))
      return outcome
    }
    const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
    const { harness } = await start({
      config: { lsp: lspTestConfig() },
      script: [
        call('read', { file_path: 'src/math.ts' }),
        keep(
          call('edit', {
            file_path: 'src/math.ts',
            old_string: 'return a + b',
            new_string: "return a + 'b'",
          }),
        ),
        keep(
          call('edit', {
            file_path: 'src/math.ts',
            old_string: "return a + 'b'",
            new_string: 'return a + b',
          }),
        ),
        keep(call('lsp_definition', { file_path: 'src/main.ts', symbol: 'add' })),
        keep(call('lsp_references', { file_path: 'src/math.ts', line: 2, column: 17 })),
        keep(call('lsp_hover', { file_path: 'src/main.ts', symbol: 'five' })),
        keep(call('lsp_symbols', { file_path: 'src/math.ts' })),
        keep(call('lsp_symbols', { file_path: 'src/main.ts', query: 'add' })),
        keep(call('lsp_diagnostics', { file_path: 'src/main.ts' })),
        keep(call('lsp_diagnostics', { file_path: 'README.xyz' })),
        keep({ text: 'done' }),
      ],
    })
    const agent = await harness.agents.create({ sessionId: 'lsp-ts', meta: { cwd: project } })
    const result = await agent.prompt('break and fix add')
    expect(result.reason).toBe('completed')
    const [, broken, fixed, definition, references, hover, outline, workspace, clean, none] = results

    expect(broken).toContain('LSP: 1 new error in src/math.ts:')
    expect(broken).toMatch(/src\/math\.ts:3:3: error: Type 'string' is not assignable to type 'number'\./)
    expect(fixed).not.toContain('error')
    expect(readFileSync(math, 'utf8')).toContain('return a + b')

    expect(definition).toBe('src/math.ts:2:17: export function add(a: number, b: number): number {')
    expect(references!.split('\n')).toEqual([
      "src/main.ts:1:10: import { add } from './math.js'",
      'src/main.ts:3:30: export const three: number = add(1, 2)',
      'src/main.ts:4:21: export const five = add(2, 3)',
      'src/math.ts:2:17: export function add(a: number, b: number): number {',
    ])
    expect(hover).toContain('const five: number')
    expect(outline).toContain('function add — src/math.ts:2:17')
    expect(workspace).toMatch(/^function add — src\/math\.ts:2:\d+$/m)
    expect(clean).toBe('No errors or warnings in src/main.ts.')
    expect(none).toBe('no language server for .xyz')

    const [server] = harness.ctx.lsp.status()
    expect(server).toMatchObject({ id: 'typescript', root: project, state: 'running', restarts: 0 })
    const pgid = server!.pid!
    expect(liveGroupMembers(pgid).length).toBeGreaterThan(1) // the server and its tsserver processes
    await harness.dispose()
    // Disposal awaited shutdown/exit and the group kill: nothing of the server is left
    // (zombies aside: the container's init reaps the orphaned tsserver processes late).
    await groupGone(pgid)
    expect(readFileSync(join(harness.config.home, 'logs', 'lsp', 'typescript.log'), 'utf8')).toContain(
      'starting',
    )
  },
)
