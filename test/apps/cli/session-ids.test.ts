// Short id prefixes and renaming on the built CLI: `run -r`/`--fork` and `sessions show`,
// `path`, `rename` take a unique prefix of 6+ characters; an ambiguous or unknown one is
// one line with exit code 2; `sessions list` and `search` show the renamed title.

import { expect, it } from 'vitest'
import type { Script } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, jsonLines, runCli, useModelWorlds } from './cli.js'

const startWorld = useModelWorlds(useTempDirs('dsh-cli-ids-'))
const world = (script: Script) => startWorld(script, { strict: true })

async function newSession(w: Awaited<ReturnType<typeof world>>, id: string, prompt: string): Promise<void> {
  const run = await runCli(['run', '--session-id', id, prompt], { env: w.env, cwd: w.project })
  expect(run.code, run.stderr).toBe(0)
}

function oneLineError(result: { code: number | null; stderr: string; stdout: string }): string {
  expect(result.code).toBe(2)
  expect(result.stdout).toBe('')
  expect(hasStack(result.stderr)).toBe(false)
  const lines = result.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  return lines[0]!
}

it('resumes, forks, shows and locates a session by a unique prefix; refuses ambiguous and short ones', async () => {
  await assertBuilt()
  const w = await world([
    { text: 'one' },
    { text: 'two' },
    { text: 'three' },
    { text: 'resumed' },
    { text: 'forked' },
  ])
  await newSession(w, 'aaaaaa11-first', 'first prompt')
  await newSession(w, 'aaaaaa22-second', 'second prompt')
  await newSession(w, 'bbbb3333-third', 'third prompt')

  const resumed = await runCli(['run', '-r', 'aaaaaa1', 'go on'], { env: w.env, cwd: w.project })
  expect(resumed.code, resumed.stderr).toBe(0)
  expect(resumed.stderr).toContain('session aaaaaa11-first (resumed)')
  const forked = await runCli(['run', '--json', '--fork', 'bbbb3333', 'branch'], {
    env: w.env,
    cwd: w.project,
  })
  expect(forked.code, forked.stderr).toBe(0)
  expect(jsonLines(forked.stdout)[0]).toMatchObject({ type: 'session', how: 'forked' })

  const show = await runCli(['sessions', 'show', '--json', 'aaaaaa2'], { env: w.env, cwd: w.project })
  expect(jsonLines(show.stdout)[0]).toMatchObject({ type: 'session', id: 'aaaaaa22-second' })
  const path = await runCli(['sessions', 'path', 'bbbb33'], { env: w.env, cwd: w.project })
  expect(path.stdout).toMatch(/bbbb3333-third\.jsonl\n$/)

  const candidates = 'aaaaaa11-first, aaaaaa22-second'
  for (const command of [
    ['run', '-r', 'aaaaaa', 'x'],
    ['run', '--fork', 'aaaaaa', 'x'],
    ['sessions', 'show', 'aaaaaa'],
    ['sessions', 'rename', 'aaaaaa', 'x'],
  ]) {
    const refused = await runCli(command, { env: w.env, cwd: w.project })
    expect(oneLineError(refused), command.join(' ')).toBe(
      `dsh: session id prefix "aaaaaa" is ambiguous: ${candidates} (give more characters)`,
    )
  }
  // Shorter than 6 characters: never a prefix, even a unique one.
  for (const command of [
    ['run', '-r', 'bbbb3', 'x'],
    ['sessions', 'path', 'bbbb3'],
  ]) {
    const refused = await runCli(command, { env: w.env, cwd: w.project })
    expect(oneLineError(refused), command.join(' ')).toBe('dsh: unknown session "bbbb3"')
  }
  // A malformed id on the command line is a usage error too (exit 2), for every flag that takes one.
  const tooLong = 'z'.repeat(4097)
  for (const command of [
    ['run', '--session-id', tooLong, 'x'],
    ['run', '-r', tooLong, 'x'],
    ['run', '--fork', tooLong, 'x'],
    ['sessions', 'show', tooLong],
  ]) {
    const refused = await runCli(command, { env: w.env, cwd: w.project })
    expect(oneLineError(refused), command.slice(0, 2).join(' ')).toMatch(
      /^dsh: invalid session id "z{80}…": /,
    )
  }
  expect(w.model.requests).toHaveLength(5)
})

it('renames by prefix: list and search show the title; an empty title is one line, exit 2', async () => {
  await assertBuilt()
  const w = await world([{ text: 'answer' }])
  await newSession(w, 'cccc4444-renamed', 'fix the slug bug')
  const renamed = await runCli(['sessions', 'rename', 'cccc44', 'Slug bug hunt'], {
    env: w.env,
    cwd: w.project,
  })
  expect(renamed.stderr).toBe('')
  expect(renamed.stdout).toBe('renamed cccc4444-renamed: Slug bug hunt\n')
  const rows = JSON.parse(
    (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
  )
  expect(rows).toMatchObject([{ id: 'cccc4444-renamed', title: 'Slug bug hunt' }])
  const text = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(text.stdout).toContain('Slug bug hunt')
  const search = await runCli(['sessions', 'search', '--json', 'slug'], { env: w.env, cwd: w.project })
  expect(JSON.parse(search.stdout)[0]).toMatchObject({
    sessionId: 'cccc4444-renamed',
    title: 'Slug bug hunt',
  })

  expect(
    oneLineError(await runCli(['sessions', 'rename', 'cccc44', '  '], { env: w.env, cwd: w.project })),
  ).toBe('dsh: the title is empty')
  expect(
    oneLineError(await runCli(['sessions', 'rename', 'zzzzzz', 'x'], { env: w.env, cwd: w.project })),
  ).toBe('dsh: unknown session "zzzzzz"')
})
