// Headless and piped output a script can rely on: reasoning never mixed into the answers
// on stdout (stderr by default, marked with --show-reasoning), a turn's error line whole
// on a file, and a failed command's progress line with its first stderr line and exit code.

import { beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, cliEnv, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-headless-out-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

describe('reasoning on a pipe', () => {
  const script = [
    { reasoning: 'SECRET PLAN first', text: 'answer one' },
    { reasoning: 'SECRET PLAN second', text: 'answer two' },
  ]

  it('piped chat: the answers alone on stdout, the reasoning on stderr, labelled', async () => {
    const w = await startWorld(script)
    const result = await runCli(['chat'], { env: w.env, cwd: w.project, input: 'one\ntwo\n' })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).not.toContain('SECRET')
    expect(result.stdout).toMatch(/> one\nanswer one\n[\s\S]*> two\nanswer two\n/)
    expect(result.stderr).toBe('thinking: SECRET PLAN first\nthinking: SECRET PLAN second\n')
  })

  it('--show-reasoning: on stdout, between [thinking] and [/thinking] lines', async () => {
    const w = await startWorld(script)
    const result = await runCli(['chat', '--show-reasoning'], { env: w.env, cwd: w.project, input: 'one\n' })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('> one\n[thinking]\nSECRET PLAN first\n[/thinking]\nanswer one\n')
    expect(result.stderr).toBe('')
  })

  it('dsh demo on a pipe keeps its reasoning off stdout', async () => {
    const home = makeDir()
    const result = await runCli(['demo'], { env: cliEnv({ DSH_HOME: home }), cwd: makeDir() })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^thinking: /m)
    const reasoning = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('thinking: '))
      .map((line) => line.slice('thinking: '.length))
    for (const line of reasoning) if (line.length > 10) expect(result.stdout).not.toContain(line)
  })
})

it('the "turn ended: error" line is whole when stderr is a file or pipe', async () => {
  const long = `the server refused: ${'x'.repeat(400)} — the end of the message`
  const w = await startWorld([{ status: 400, message: long }])
  const result = await runCli(['run', 'hi'], { env: w.env, cwd: w.project })
  expect(result.code).toBe(1)
  const line = result.stderr.split('\n').find((l) => l.startsWith('turn ended: error'))
  expect(line, result.stderr).toContain('the end of the message')
  expect(line).not.toContain('…')
})

it('a failed command shows its first stderr line and exit code on the progress line', async () => {
  const w = await startWorld([
    {
      toolCalls: [
        {
          name: 'bash',
          arguments: { command: 'echo fine; echo "tests: parse error at line 3" >&2; echo more >&2; exit 3' },
        },
      ],
    },
    { text: 'done' },
  ])
  const result = await runCli(['run', '--permission-mode', 'bypassPermissions', 'test it'], {
    env: w.env,
    cwd: w.project,
  })
  expect(result.code, result.stderr).toBe(0)
  expect(result.stderr).toMatch(/⎿ tests: parse error at line 3 \(\+2 lines\) · exit 3\n/)
})
