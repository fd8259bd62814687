// `dsh sessions search` end to end on the built CLI: the corpus of the search contract
// written as JSONL logs, results with folder, turn and snippet, the folder scope, JSON,
// and bad input as one line with exit code 2.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { eventLines, headerLine } from '../../../src/persistence/jsonl/codec.js'
import { bucketFor, encodeSessionId } from '../../../src/persistence/jsonl/layout.js'
import { corpus } from '../../history/search-contract.js'
import { makeHeader } from '../../persistence/fixtures.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-cli-search-')
beforeAll(assertBuilt)

/** A world whose sessions are the contract's corpus, the first folder being its project. */
function world() {
  const w = makeWorld(makeDir(), 'http://127.0.0.1:9')
  // One clock for all: which session is newest must not depend on how fast the files are
  // written (a busy machine once made s-deploy newer than s-slug). The corpus's ages, read as
  // minutes, keep every session recent: s-deploy (2) is this folder's newest, s-slug (30) older.
  const now = Date.now()
  for (const [id, cwd, age, events] of corpus()) {
    const folder = cwd === '/work/project-a' ? w.project : cwd
    const dir = join(w.home, 'sessions', bucketFor(folder))
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const header = makeHeader(id, { cwd: folder, createdAt: now - 3_600_000 })
    const last = now - age * 60_000
    const recent = events.map((event, index) => ({ ...event, time: last - events.length + index }))
    writeFileSync(join(dir, `${encodeSessionId(id)}.jsonl`), headerLine(header) + eventLines(recent, null))
  }
  return w
}

it('finds sessions of this folder, or of every folder with --all, with turn and snippet', async () => {
  const w = world()
  const here = await runCli(['sessions', 'search', 'slug'], { env: w.env, cwd: w.project })
  expect(here.stderr).toBe('')
  expect(here.code).toBe(0)
  expect(here.stdout).toMatch(
    /^s-slug {2}\d+[sm] ago {2}Fix the slug bug in router.ts\n {2}turn 1 · prompt: Fix the slug bug/,
  )
  expect(here.stdout).not.toContain('s-docs')
  const all = await runCli(['sessions', 'search', '--all', 'slug'], { env: w.env, cwd: w.project })
  expect(all.stdout).toContain('s-docs')
  expect(all.stdout).toContain('/work/project-b')
  const json = await runCli(['sessions', 'search', '--all', '--json', 'successfully'], {
    env: w.env,
    cwd: w.project,
  })
  const [hit] = JSON.parse(json.stdout)
  expect(hit).toMatchObject({ sessionId: 's-deploy', turn: 1, kind: 'tool-output' })
  const none = await runCli(['sessions', 'search', 'zebra'], { env: w.env, cwd: w.project })
  expect(none.stdout).toMatch(/^no sessions match "zebra" in /)
})

it('refuses bad input in one line with exit code 2', async () => {
  const w = world()
  for (const args of [['"unclosed'], ['*'], ['slug', '--since', 'soon'], ['slug', '--limit', '0']]) {
    const result = await runCli(['sessions', 'search', ...args], { env: w.env, cwd: w.project })
    expect(result.code, args.join(' ')).toBe(2)
    expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
    expect(hasStack(result.stderr)).toBe(false)
  }
})

it('an empty session (quit before a prompt) is hidden by list, never continued, removed by prune', async () => {
  const w = world()
  const dir = join(w.home, 'sessions', bucketFor(w.project))
  const header = makeHeader('s-empty', { cwd: w.project, createdAt: Date.now() })
  const config = {
    seq: 0,
    type: 'request/config',
    time: Date.now() + 1000,
    data: { model: 'm', system: 's', tools: [] },
  }
  writeFileSync(join(dir, 's-empty.jsonl'), headerLine(header) + eventLines([config], null))
  const list = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(list.stdout).not.toContain('s-empty')
  expect(list.stdout).toContain('(1 empty session not shown; dsh sessions prune removes them)')
  const { latestResumable } = await import('../../../src/history/index.js')
  const { listSessions } = await import('../../../src/persistence/jsonl/catalog.js')
  const summaries = await listSessions(join(w.home, 'sessions'))
  // The empty session is the newest, yet --continue picks the newest with a turn.
  expect(latestResumable(summaries, w.project)).toBe('s-deploy')
  const prune = await runCli(['sessions', 'prune', '--older-than', '30d'], { env: w.env, cwd: w.project })
  expect(prune.stdout).toContain('removed 1 session')
  const after = await runCli(['sessions', 'list'], { env: w.env, cwd: w.project })
  expect(after.stdout).not.toContain('empty session')
  expect(after.stdout).toContain('s-slug')
})
