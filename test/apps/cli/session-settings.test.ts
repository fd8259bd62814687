// Resume and fork restore a session's settings (model, effort, permission mode) from its
// log, and a flag overrides them; `--fork ID --at-turn N` cuts the history after turn N.
// Through the built CLI against a loopback model, on the JSONL and SQLite backends.

import { beforeAll, describe, expect, it } from 'vitest'
import type { LoopbackModel } from '../../support/loopback-model.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, jsonLines, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-settings-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const PLAN_NOTE = 'Plan mode is on'

/** The request's last message: plan mode adds its note after the prompt (earlier notes stay in the history). */
function lastMessage(model: LoopbackModel, index: number): string {
  return String(model.requests[index]!.messages.at(-1)!.content)
}

function userPrompts(model: LoopbackModel, index: number): string[] {
  return model.requests[index]!.messages.filter((m) => m.role === 'user').map((m) => m.content as string)
}

describe.each(['jsonl', 'sqlite'] as const)('session settings (%s)', (backend) => {
  const config = `persistence:\n  backend: ${backend}\n`

  it('resume, --continue and fork restore model, effort and mode; a flag wins', () =>
    restoresSettings(config))

  it('--fork ID --at-turn 2 of a 4-turn session sends exactly turns 1 and 2; bad turns are one line, exit 2', () =>
    forksAtTurn(config))
})

describePostgres(`session settings (postgres)${describeSkipReason()}`, { timeout: 120_000 }, () => {
  const pgHandle = useCluster()
  it('resume, --continue and fork restore model, effort and mode; a flag wins', () =>
    restoresSettings(
      `persistence:\n  backend: postgres\n  url: ${pgHandle.cluster.url}\n  schema: ${pgHandle.schema()}\n`,
    ))
})

async function restoresSettings(config: string): Promise<void> {
  const answers = Array.from({ length: 7 }, (_, i) => ({ text: `answer ${i + 1}` }))
  const w = await startWorld(answers, { config })
  const run = (args: string[]) => runCli(['run', ...args], { env: w.env, cwd: w.project })

  const first = await run(['--json', '-m', 'model-a', '--effort', 'low', '--permission-mode', 'plan', 'one'])
  expect(first.code, first.stderr).toBe(0)
  const id = jsonLines(first.stdout)[0]!.sessionId as string
  expect(w.model.requests[0]).toMatchObject({ model: 'model-a', reasoning_effort: 'low' })
  expect(lastMessage(w.model, 0)).toContain(PLAN_NOTE)

  const resumed = await run(['-r', id, 'two'])
  expect(resumed.code, resumed.stderr).toBe(0)
  expect(resumed.stderr).toContain('restored: model model-a, effort low, mode plan\n')
  expect(w.model.requests[1]).toMatchObject({ model: 'model-a', reasoning_effort: 'low' })
  expect(lastMessage(w.model, 1)).toContain(PLAN_NOTE)

  // Flags win, and what they chose is what the log restores next.
  const overridden = await run(['-r', id, '-m', 'model-b', '--permission-mode', 'auto', 'three'])
  expect(overridden.code, overridden.stderr).toBe(0)
  expect(overridden.stderr).toContain('restored: effort low\n')
  expect(w.model.requests[2]).toMatchObject({ model: 'model-b', reasoning_effort: 'low' })
  expect(lastMessage(w.model, 2)).toBe('three')

  const fork = await run(['--json', '--fork', id, 'four'])
  expect(fork.code, fork.stderr).toBe(0)
  expect(jsonLines(fork.stdout)[0]).toMatchObject({
    how: 'forked',
    parentSession: id,
    restored: { model: 'model-b', effort: 'low', mode: 'auto' },
  })
  expect(w.model.requests[3]).toMatchObject({ model: 'model-b', reasoning_effort: 'low' })

  const continued = await run(['-c', '--effort', 'max', 'five'])
  expect(continued.code, continued.stderr).toBe(0)
  expect(continued.stderr).toContain('restored: model model-b, mode auto\n')
  expect(w.model.requests[4]).toMatchObject({ model: 'model-b', reasoning_effort: 'max' })

  // `--session-id` of a stored session resumes it (`id`, not the fork `-c` took), and says
  // what came back as `-r` does.
  const byId = await run(['--json', '--session-id', id, 'six'])
  expect(byId.code, byId.stderr).toBe(0)
  expect(jsonLines(byId.stdout)[0]).toMatchObject({
    how: 'resumed',
    restored: { model: 'model-b', effort: 'low', mode: 'auto' },
  })
  const byIdText = await run(['--session-id', id, 'seven'])
  expect(byIdText.stderr).toContain('restored: model model-b, effort low, mode auto\n')
}

async function forksAtTurn(config: string): Promise<void> {
  const answers = Array.from({ length: 5 }, (_, i) => ({ text: `answer ${i + 1}` }))
  const w = await startWorld(answers, { config })
  const run = (args: string[]) => runCli(['run', ...args], { env: w.env, cwd: w.project })
  const first = await run(['--json', 'turn one'])
  const id = jsonLines(first.stdout)[0]!.sessionId as string
  for (const prompt of ['turn two', 'turn three', 'turn four']) {
    expect((await run(['-r', id, prompt])).code).toBe(0)
  }

  const fork = await run(['--json', '--fork', id, '--at-turn', '2', 'after two'])
  expect(fork.code, fork.stderr).toBe(0)
  expect(jsonLines(fork.stdout)[0]).toMatchObject({ how: 'forked', parentSession: id })
  expect(userPrompts(w.model, 4)).toEqual(['turn one', 'turn two', 'after two'])
  const assistant = w.model.requests[4]!.messages.filter((m) => m.role === 'assistant')
  expect(assistant.map((m) => m.content)).toEqual(['answer 1', 'answer 2'])

  for (const [args, message] of [
    [['--fork', id, '--at-turn', '5', 'x'], 'dsh: cannot fork at turn 5: its turns are 1 to 4'],
    [['--fork', id, '--at-turn', '0', 'x'], 'dsh: --at-turn "0": expected a turn number from 1'],
    [['--fork', id, '--at-turn', 'two', 'x'], 'dsh: --at-turn "two": expected a turn number from 1'],
    [['--at-turn', '2', 'x'], 'dsh: --at-turn goes with --fork ID'],
  ] as const) {
    const result = await run([...args])
    expect(result.code, args.join(' ')).toBe(2)
    expect(result.stderr.trim()).toBe(message)
    expect(hasStack(result.stderr)).toBe(false)
  }
  expect(w.model.requests).toHaveLength(5)
}
