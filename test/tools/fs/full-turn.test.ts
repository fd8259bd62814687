// A full turn through the composition root and the loopback model: the model greps, reads,
// edits and tests a small project; a Claude Code PreToolUse hook sees `Edit` with Claude
// Code's tool_input fields; nested AGENTS.md/CLAUDE.md reach the first request unchanged
// in every request.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { ScriptOutcome, ScriptRequest } from '../../../src/llm/index.js'
import { useTestHarnesses } from '../../support/harness.js'
import { useTempDirs } from '../../support/temp-dir.js'

const start = useTestHarnesses()
const tempDir = useTempDirs('dsh-fs-turn-')

function lastToolText(request: ScriptRequest): string {
  const last = request.messages.at(-1)!
  return typeof last.content === 'string' ? last.content : ''
}

it('greps, reads, edits and tests a small project; hooks and instructions see what Claude Code shows', async () => {
  const dir = tempDir()
  const project = join(dir, 'project')
  const pkg = join(project, 'pkg')
  mkdirSync(join(project, '.git'), { recursive: true })
  mkdirSync(pkg)
  writeFileSync(join(project, 'AGENTS.md'), 'Root rule: run `node test.js` after every change.\n')
  writeFileSync(join(project, 'CLAUDE.md'), 'Ignored: AGENTS.md wins in this folder.\n')
  writeFileSync(join(pkg, 'CLAUDE.md'), 'Package rule: keep functions pure.\n')
  writeFileSync(join(pkg, 'calc.js'), 'export const add = (a, b) => a - b\n')
  writeFileSync(
    join(pkg, 'test.js'),
    "import { add } from './calc.js'\nif (add(2, 3) !== 5) { console.log('FAIL'); process.exit(1) }\nconsole.log('ok')\n",
  )
  writeFileSync(join(pkg, 'package.json'), '{"type":"module"}\n')
  const seen = join(dir, 'hook-input.jsonl')
  const hooks = join(dir, 'settings.json')
  writeFileSync(
    hooks,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: 'Edit|Write', hooks: [{ type: 'command', command: `cat >> ${seen}; echo >> ${seen}` }] },
        ],
      },
    }),
  )

  const results: string[] = []
  /** A step that first keeps the previous tool result. */
  const keep = (outcome: ScriptOutcome) => (request: ScriptRequest) => {
    results.push(lastToolText(request))
    return outcome
  }
  const { harness, model, home } = await start({
    config: { hooks: { claudeCode: [hooks] } },
    script: [
      { toolCalls: [{ name: 'grep', arguments: { pattern: 'a - b', output_mode: 'content' } }] },
      keep({ toolCalls: [{ name: 'read', arguments: { file_path: 'calc.js' } }] }),
      keep({
        toolCalls: [
          { name: 'edit', arguments: { file_path: 'calc.js', old_string: 'a - b', new_string: 'a + b' } },
        ],
      }),
      keep({ toolCalls: [{ name: 'bash', arguments: { command: 'node test.js' } }] }),
      keep({ text: 'Fixed add; the test passes.' }),
    ],
  })
  writeFileSync(join(home, 'AGENTS.md'), 'User rule: be brief.\n')
  const agent = await harness.agents.create({ sessionId: 'fs-turn', meta: { cwd: pkg } })
  const result = await agent.prompt('fix the failing test')
  expect(result.reason).toBe('completed')

  expect(results[0]).toBe('calc.js:1:export const add = (a, b) => a - b')
  expect(results[1]).toBe('     1\texport const add = (a, b) => a - b')
  expect(results[2]).toContain('-export const add = (a, b) => a - b\n+export const add = (a, b) => a + b')
  expect(results[3]).toBe('ok')
  expect(readFileSync(join(pkg, 'calc.js'), 'utf8')).toBe('export const add = (a, b) => a + b\n')

  const hookInput = JSON.parse(readFileSync(seen, 'utf8').trim())
  expect(hookInput).toMatchObject({
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: join(pkg, 'calc.js'), old_string: 'a - b', new_string: 'a + b' },
  })

  // Instructions: the first message after the system prompt, byte-identical in every request.
  const first = model.requests[0]!.messages[1]!
  expect(first.role).toBe('user')
  const text = String(first.content)
  const order = ['User rule: be brief.', 'Root rule:', 'Package rule:'].map((needle) => text.indexOf(needle))
  expect(order.every((at) => at >= 0)).toBe(true)
  expect([...order].sort((a, b) => a - b)).toEqual(order)
  expect(text).not.toContain('Ignored: AGENTS.md wins')
  expect(model.requests).toHaveLength(5)
  for (const request of model.requests)
    expect(JSON.stringify(request.messages[1])).toBe(JSON.stringify(first))
  const logged = agent.session.events.filter((e) => e.type === 'instructions/loaded')
  expect(logged).toHaveLength(1)
  expect((logged[0]!.data as { files: string[] }).files).toEqual([
    join(home, 'AGENTS.md'),
    join(project, 'AGENTS.md'),
    join(pkg, 'CLAUDE.md'),
  ])
})
