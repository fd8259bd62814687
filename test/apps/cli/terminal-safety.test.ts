// Escape sequences from the model, tool output and hook messages never reach the
// terminal raw: `dsh run` progress and `sessions show` print them escaped
// (toTerminalText), so no window title, clipboard write or cursor move happens.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-terminal-')
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

/** A raw ESC or BEL: something a terminal would act on. */
function hasRawControl(text: string): boolean {
  return text.includes('\u001b') || text.includes('\u0007')
}

const TITLE = '\u001b]0;pwned-title\u0007'
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4=\u0007'

it('run progress, sessions show and hook messages show escape sequences escaped', async () => {
  const dir = makeDir()
  const model = await startModel([
    {
      text: `model says ${TITLE}hi`,
      toolCalls: [
        { name: 'bash', arguments: { command: "printf 'out \\033]52;c;cm0gLXJmIH4=\\007 done\\n'" } },
        { name: 'bash', arguments: { command: 'echo blocked-one' } },
      ],
    },
    { text: `final ${CLIPBOARD}` },
  ])
  const w = makeWorld(dir, model.baseUrl)
  const hook = join(dir, 'settings.json')
  writeFileSync(
    hook,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command:
                  "grep -q blocked-one && { printf 'no \\033[2J\\033]0;hook-title\\007 way' >&2; exit 2; } || exit 0",
              },
            ],
          },
        ],
      },
    }),
  )
  writeFileSync(
    join(w.home, 'config.yaml'),
    `model:\n  baseUrl: ${model.baseUrl}\n  maxRetries: 0\nhooks:\n  claudeCode: [${JSON.stringify(hook)}]\n`,
  )
  const run = await runCli(['run', '--json', 'go'], { env: w.env, cwd: w.project })
  expect(run.code, run.stderr).toBe(0)
  const id = jsonLines(run.stdout)[0]!.sessionId as string

  const show = await runCli(['sessions', 'show', id], { env: w.env, cwd: w.project })
  expect(show.code).toBe(0)
  expect(hasRawControl(show.stdout)).toBe(false)
  expect(show.stdout).toContain('model says \\e]0;pwned-title\\x07hi')
  expect(show.stdout).toContain('out \\e]52;c;cm0gLXJmIH4=\\x07 done')
  expect(show.stdout).toContain('\\e[2J\\e]0;hook-title\\x07 way')
})

it('run progress on stderr is escaped too', async () => {
  const dir = makeDir()
  const model = await startModel([
    {
      text: `thinking aloud ${TITLE}`,
      toolCalls: [{ name: 'bash', arguments: { command: "printf 'x \\033]52;c;Zm9v\\007 y\\n'" } }],
    },
    { text: 'done' },
  ])
  const w = makeWorld(dir, model.baseUrl)
  const run = await runCli(['run', 'go'], { env: w.env, cwd: w.project })
  expect(run.code, run.stderr).toBe(0)
  expect(hasRawControl(run.stderr)).toBe(false)
  expect(run.stderr).toContain('thinking aloud \\e]0;pwned-title\\x07')
  expect(run.stderr).toContain('x \\e]52;c;Zm9v\\x07 y')
})

/** Bidi controls and invisible characters: a terminal shows none of them as what they are. */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/

it('session ids with bidi controls or invisible characters print escaped: run, sessions list, show', async () => {
  const dir = makeDir()
  const model = await startModel([{ text: 'one' }, { text: 'two' }])
  const w = makeWorld(dir, model.baseUrl)
  // Looks like "invoice-fdp" in a terminal that honours the override; "a​b" looks like "ab".
  const ids = ['invoice-\u202epdf.exe', 'a\u200bb\ufeff\u2066x\u2069\u061c']
  for (const id of ids) {
    const run = await runCli(['run', '--session-id', id, 'hi'], { env: w.env, cwd: w.project })
    expect(run.code, run.stderr).toBe(0)
    expect(INVISIBLE.test(run.stderr), run.stderr).toBe(false)
  }
  const list = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(list.code, list.stderr).toBe(0)
  expect(INVISIBLE.test(list.stdout), list.stdout).toBe(false)
  expect(list.stdout).toContain('invoice-\\u202epdf.exe')
  expect(list.stdout).toContain('a\\u200bb\\ufeff\\u2066x\\u2069\\u061c')
  const show = await runCli(['sessions', 'show', ids[0]!], { env: w.env, cwd: w.project })
  expect(show.stdout).toContain('session invoice-\\u202epdf.exe')
  expect(INVISIBLE.test(show.stdout)).toBe(false)
  // The JSON form keeps the id exactly (a program reads it, not a person).
  const json = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
  expect((JSON.parse(json.stdout) as { id: string }[]).map((row) => row.id).sort()).toEqual([...ids].sort())
})
