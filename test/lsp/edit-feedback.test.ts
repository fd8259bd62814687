// Edit feedback with the fake server, through full turns: the error an edit introduced is
// the one reported (not an identical one that was there and did not move), and "other
// files" are only those the server has open. Then the pairing itself (newOnes): line shifts,
// identical errors, edited lines, and thousands of diagnostics.

import { describe, expect, it } from 'vitest'
import type { ScriptOutcome, ScriptRequest } from '../../src/llm/index.js'
import { newOnes } from '../../src/lsp/index.js'
import type { LspDiagnostic } from '../../src/lsp/types.js'
import { type FakeLspMode, fakeLspServer } from '../support/fake-lsp.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-lsp-feedback-')

type Call = { name: string; arguments: Record<string, unknown> }

/** Runs `calls` one per step in a turn; answers each call's tool result text. */
async function turn(mode: FakeLspMode, calls: readonly Call[]): Promise<{ dir: string; results: string[] }> {
  const dir = tempDir()
  const fake = fakeLspServer(dir, mode)
  const results: string[] = []
  const keep = (outcome: ScriptOutcome) => (request: ScriptRequest) => {
    const last = request.messages.at(-1)!
    results.push(typeof last.content === 'string' ? last.content : '')
    return outcome
  }
  const [first, ...rest] = calls
  const { harness } = await start({
    config: { lsp: { servers: { fake: fake.entry }, diagnosticsWaitMs: 60_000, diagnosticsSettleMs: 50 } },
    script: [
      { toolCalls: [first!] },
      ...rest.map((call) => keep({ toolCalls: [call] })),
      keep({ text: 'done' }),
    ],
  })
  const agent = await harness.agents.create({ sessionId: 'lsp-feedback', meta: { cwd: dir } })
  expect((await agent.prompt('edit')).reason).toBe('completed')
  return { dir, results }
}

const write = (file: string, content: string): Call => ({
  name: 'write',
  arguments: { file_path: file, content },
})
const read = (file: string): Call => ({ name: 'read', arguments: { file_path: file } })
const edit = (file: string, from: string, to: string): Call => ({
  name: 'edit',
  arguments: { file_path: file, old_string: from, new_string: to },
})

describe('lsp edit feedback', { timeout: 120_000 }, () => {
  it('names the error the edit introduced, not the identical one already there', async () => {
    const { results } = await turn('normal', [
      write('a.fake', 'line one\nBAD here\n'),
      read('a.fake'),
      edit('a.fake', 'line one', 'line BAD one'),
      edit('a.fake', 'BAD here', 'BAD here\nplain\nBAD again'),
    ])
    const [, , added, below] = results
    expect(added).toContain('LSP: 1 new error in a.fake:\na.fake:1:6: error: BAD is not allowed')
    expect(added).not.toContain('a.fake:2:1')
    expect(below).toContain('LSP: 1 new error in a.fake:\na.fake:4:1: error: BAD is not allowed')
  })

  it('lists new errors only in other files the server has open', async () => {
    const { results } = await turn('other-file', [
      write('b.fake', 'fine\n'),
      write('a.fake', 'fine\n'),
      read('a.fake'),
      edit('a.fake', 'fine', 'still fine'),
    ])
    const edited = results.at(-1)!
    expect(edited).toContain(
      'LSP: 1 new error in other files:\nb.fake:1:1: error: broken by a change elsewhere',
    )
    expect(edited).not.toContain('never-opened')
  })
})

describe('newOnes', () => {
  const at = (line: number, column = 1, message = 'BAD is not allowed'): LspDiagnostic => ({
    path: '/p/a.fake',
    line,
    column,
    severity: 'error',
    message,
  })
  const places = (list: readonly LspDiagnostic[]) => list.map((d) => `${d.line}:${d.column}`)

  it('follows old errors below the edit by its line shift', () => {
    const before = 'a\nBAD\nb\nBAD\n'
    const after = 'a\nnew line\nBAD\nb\nBAD\n'
    expect(places(newOnes([at(2), at(4)], [at(3), at(5)], { before, after }))).toEqual([])
    const grown = 'a\nBAD\nBAD\nb\nBAD\n'
    expect(places(newOnes([at(2), at(4)], [at(2), at(3), at(5)], { before, after: grown }))).toEqual(['3:1'])
  })

  it('keeps identical errors that did not move as old, even in the edited lines', () => {
    const before = 'x BAD\ny\n'
    const after = 'xx BAD BAD\ny\n'
    expect(places(newOnes([at(1, 3)], [at(1, 4), at(1, 8)], { before, after }))).toEqual(['1:8'])
    expect(places(newOnes([at(1), at(1, 5)], [at(1), at(1, 5)]))).toEqual([])
  })

  it('an identical error at another place is new; a different message is new', () => {
    expect(places(newOnes([at(3)], [at(7)]))).toEqual(['7:1'])
    expect(places(newOnes([at(3)], [at(3, 1, 'other')]))).toEqual(['3:1'])
  })

  it('without the text before, pairs by order and distance', () => {
    expect(places(newOnes([at(2)], [at(1, 6), at(2)], { after: 'line BAD one\nBAD here\n' }))).toEqual([
      '1:6',
    ])
  })

  it('stays fast with thousands of identical diagnostics', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => (i % 2 === 0 ? 'BAD' : 'ok'))
    const before = lines.join('\n')
    const after = ['BAD first', ...lines].join('\n')
    const old = lines.flatMap((line, i) => (line === 'BAD' ? [at(i + 1)] : []))
    const fresh = [at(1), ...old.map((d) => at(d.line + 1))]
    const started = performance.now()
    expect(places(newOnes(old, fresh, { before, after }))).toEqual(['1:1'])
    const whole = newOnes(old, fresh, { after })
    expect(whole).toHaveLength(1)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
