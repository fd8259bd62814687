// The session search contract: one corpus stored through a backend, the same queries,
// the same results in the same order on every backend (memory, JSONL with ripgrep and
// streamed, SQLite, PostgreSQL). Results are compared field by field with the expected
// list below, so two backends passing it answer alike.

import { expect, it } from 'vitest'
import { searchSessions } from '../../src/history/index.js'
import type { SessionPersistence } from '../../src/persistence/persistence.js'
import type { SessionEvent } from '../../src/session/types.js'
import { LogBuilder, makeHeader, T0 } from '../persistence/fixtures.js'

export const DIR_A = '/work/project-a'
export const DIR_B = '/work/project-b'
export const DIR_C = '/work/project-c'
const HOUR = 3_600_000
export const NOW = T0 + 10 * 24 * HOUR

/** The corpus: `[id, cwd, age in hours at NOW, events]`. */
export function corpus(): [string, string, number, SessionEvent[]][] {
  const slug = new LogBuilder()
    .add('turn/start', { turn: 1 })
    .add('user/message', { text: 'Fix the slug bug in router.ts' })
    .add('request/config', { model: 'deepseek-flash', system: 's', tools: [] })
    .add('step/start', { turn: 1, step: 0 })
    .add('assistant/message', { message: { content: '', reasoning: 'the router builds slugs' } })
    .add('tool/call', { callId: 'c1', name: 'bash', arguments: '{"command":"grep -rn slugify src"}' })
    .add('tool/result', { callId: 'c1', content: 'src/router.ts:12:  const s = slugify(title)\n' })
    .add('step/end', { turn: 1, step: 0 })
    .add('assistant/message', { message: { content: 'I fixed the slugify helper.' } })
    .add('turn/end', { turn: 1, reason: 'completed' })
    .add('turn/start', { turn: 2 })
    .add('user/message', { text: 'now add tests' })
    .add('assistant/message', { message: { content: 'Added tests for the slug-bug regression.' } })
    .add('turn/end', { turn: 2, reason: 'completed' })
  const deploy = new LogBuilder()
    .add('turn/start', { turn: 1 })
    .add('user/message', { text: 'deploy the staging server' })
    .add('request/config', { model: 'deepseek-pro', system: 's', tools: [] })
    .add('assistant/message', { message: { content: '', reasoning: 'Thinking about Kubernetes rollouts' } })
    .add('tool/call', {
      callId: 'd1',
      name: 'bash',
      arguments: '{"command":"kubectl rollout status deploy/web"}',
    })
    .add('tool/result', { callId: 'd1', content: 'deployment "web" successfully rolled out' })
    .add('assistant/message', { message: { content: 'Deployment done.' } })
    .add('turn/end', { turn: 1, reason: 'completed' })
  const docs = new LogBuilder()
    .add('turn/start', { turn: 1 })
    .add('user/message', { text: 'write docs for the slug generator' })
    .add('assistant/message', { message: { content: 'Docs written (café, naïve ÜBER)' } })
    .add('turn/end', { turn: 1, reason: 'interrupted' })
  const titled = new LogBuilder()
    .add('turn/start', { turn: 1 })
    .add('user/message', { text: 'summarize the numbers' })
    .add('assistant/message', { message: { content: 'Revenue grew.' } })
    .add('turn/end', { turn: 1, reason: 'completed' })
  titled.addIgnorable('session/title', { title: 'Quarterly report', source: 'user' })
  return [
    ['s-slug', DIR_A, 30, slug.events],
    ['s-deploy', DIR_A, 2, deploy.events],
    ['s-docs', DIR_B, 5, docs.events],
    ['s-titled', DIR_B, 50, titled.events],
    ...manyWidgets(),
  ]
}

/**
 * Many sessions sharing a common word, so a search with a limit must choose among them:
 * the newest match thinly, older ones repeat it (in a tool output, capped at five
 * counted), say it in a title, in many answers, or in variants (`widgets`, `widgetry`)
 * that only a prefix query counts. A backend leaving out a session that could still make
 * the results (a wrong bound) gives a different list than reading everything would.
 */
function manyWidgets(): [string, string, number, SessionEvent[]][] {
  const sessions: [string, string, number, SessionEvent[]][] = []
  for (let i = 0; i < 30; i++) {
    const log = new LogBuilder()
      .add('turn/start', { turn: 1 })
      .add('user/message', { text: `please look at widget ${i}` })
      .add('assistant/message', { message: { content: 'Looked.' } })
    if (i % 7 === 3) {
      log
        .add('tool/call', { callId: `w${i}`, name: 'bash', arguments: '{"command":"cat parts"}' })
        .add('tool/result', {
          callId: `w${i}`,
          content: `${'widget '.repeat((i % 5) + 2)}and widgets, widgetry, widgeting`,
        })
    }
    if (i % 4 === 1) {
      for (let answer = 0; answer <= i % 3; answer++) {
        log.add('assistant/message', { message: { content: `the widget again (${answer})` } })
      }
    }
    log.add('turn/end', { turn: 1, reason: 'completed' })
    if (i % 11 === 5) log.addIgnorable('session/title', { title: `Widget overhaul ${i}`, source: 'user' })
    sessions.push([`w-${String(i).padStart(2, '0')}`, DIR_C, 1 + i * 4, log.events])
  }
  return sessions
}

/** Stores the corpus through `backend` (times shifted so each session has its age). */
export async function storeCorpus(backend: SessionPersistence): Promise<void> {
  for (const [id, cwd, ageHours, events] of corpus()) {
    const end = NOW - ageHours * HOUR
    const shift = end - events.at(-1)!.time
    const shifted = events.map((event) => ({ ...event, time: event.time + shift }))
    await backend.create(makeHeader(id, { cwd, createdAt: shifted[0]!.time }))
    await backend.append(id, shifted)
    await backend.release(id)
  }
}

/** Older sessions outrank the newest ones by repeating the word, in a title, or (prefix) in its variants. */
const WIDGET_TOP: [string, number, string][] = [
  ['w-03', 1, 'tool-output'],
  ['w-05', 1, 'title'],
  ['w-17', 1, 'tool-output'],
  ['w-24', 1, 'tool-output'],
  ['w-01', 1, 'prompt'],
]
const WIDGET_PREFIX_TOP: [string, number, string][] = [
  ['w-03', 1, 'tool-output'],
  ['w-17', 1, 'tool-output'],
  ['w-10', 1, 'tool-output'],
  ['w-05', 1, 'title'],
]
const WIDGET_LOOK_TOP: [string, number, string][] = [
  ['w-00', 1, 'prompt'],
  ['w-01', 1, 'prompt'],
  ['w-02', 1, 'prompt'],
]

/** `[query, options, expected [id, turn, kind] in order]`. */
export const CASES: [
  string,
  { cwd?: string; reasoning?: boolean; model?: string; status?: string; limit?: number },
  [string, number, string][],
][] = [
  // A word of a prompt, in two folders; the session matching it twice comes first.
  [
    'slug',
    {},
    [
      ['s-slug', 1, 'prompt'],
      ['s-docs', 1, 'prompt'],
    ],
  ],
  ['slug', { cwd: DIR_A }, [['s-slug', 1, 'prompt']]],
  // A word of an answer and of a tool call and output.
  ['slugify', {}, [['s-slug', 1, 'answer']]],
  ['written', {}, [['s-docs', 1, 'answer']]],
  // A tool output.
  ['successfully', {}, [['s-deploy', 1, 'tool-output']]],
  // A title.
  ['quarterly', {}, [['s-titled', 1, 'title']]],
  // A phrase (the answer's `slug-bug` is the same phrase), AND of terms, a prefix.
  ['"slug bug"', {}, [['s-slug', 1, 'prompt']]],
  ['slug tests', {}, [['s-slug', 2, 'answer']]],
  ['deploy*', {}, [['s-deploy', 1, 'prompt']]],
  ['"staging ser"*', {}, [['s-deploy', 1, 'prompt']]],
  // Reasoning only on request.
  ['kubernetes', {}, []],
  ['kubernetes', { reasoning: true }, [['s-deploy', 1, 'reasoning']]],
  // Case and letters beyond ASCII.
  ['CAFÉ', {}, [['s-docs', 1, 'answer']]],
  ['über', {}, [['s-docs', 1, 'answer']]],
  // Filters.
  ['slug', { model: 'deepseek-flash' }, [['s-slug', 1, 'prompt']]],
  ['slug', { status: 'interrupted' }, [['s-docs', 1, 'prompt']]],
  ['zebra', {}, []],
  // Many sessions match: a limit keeps the best, not merely the newest.
  ['widget', { limit: 5 }, WIDGET_TOP],
  ['widg*', { limit: 4 }, WIDGET_PREFIX_TOP],
  ['widget look', { limit: 3 }, WIDGET_LOOK_TOP],
]

/** Queries over many matching sessions: each with a limit must be the first of all results. */
const MANY: [string, number][] = [
  ['widget', 5],
  ['widget', 1],
  ['widg*', 4],
  ['widget look', 3],
  ['"widget and widgets"', 2],
  ['widget*', 7],
]

/** Registers the contract's tests; `open()` gives a backend over fresh storage. */
export function runSearchContract(open: () => Promise<SessionPersistence>): void {
  it('finds words of prompts, answers, tool calls and outputs, titles, with phrases, prefixes and filters', async () => {
    const backend = await open()
    await storeCorpus(backend)
    for (const [query, options, expected] of CASES) {
      const results = await searchSessions(backend, { query, now: NOW, ...options })
      expect(
        results.map((result) => [result.sessionId, result.turn, result.kind]),
        `${query} ${JSON.stringify(options)}`,
      ).toEqual(expected)
    }
    const [first] = await searchSessions(backend, { query: 'slugify', now: NOW })
    expect(first).toMatchObject({ cwd: DIR_A, title: 'Fix the slug bug in router.ts', turns: 2, matches: 3 })
    expect(first!.highlights.map(([from, to]) => first!.snippet.slice(from, to))).toEqual(['slugify'])
  })

  it('with a limit, keeps the first results of all of them, among many sessions matching', async () => {
    const backend = await open()
    await storeCorpus(backend)
    for (const [query, limit] of MANY) {
      const all = await searchSessions(backend, { query, now: NOW, limit: 1000 })
      expect(all.length, query).toBeGreaterThan(limit)
      expect(await searchSessions(backend, { query, now: NOW, limit }), `${query} limit ${limit}`).toEqual(
        all.slice(0, limit),
      )
    }
  })

  it('finds nothing more of a removed session', async () => {
    const backend = await open()
    await storeCorpus(backend)
    await backend.remove('s-slug')
    await backend.remove('w-03')
    const slug = await searchSessions(backend, { query: 'slug', now: NOW })
    expect(slug.map((result) => result.sessionId)).toEqual(['s-docs'])
    const widget = await searchSessions(backend, { query: 'widget', now: NOW, limit: 2 })
    expect(widget.map((result) => result.sessionId)).toEqual(['w-05', 'w-17'])
  })

  it('refuses a bad query in one line before reading anything', async () => {
    const backend = await open()
    for (const query of ['', '   ', '"unclosed', '*', 'fo*o', '---']) {
      await expect(searchSessions(backend, { query }), query).rejects.toMatchObject({
        code: 'HISTORY_INVALID_QUERY',
        userFacing: true,
      })
    }
  })
}

/** Every result field of every case, to compare two backends whole. */
export async function allResults(backend: SessionPersistence): Promise<unknown[]> {
  const all: unknown[] = []
  for (const [query, options] of CASES) {
    const results = await searchSessions(backend, { query, now: NOW, ...options })
    // `status` is what only a store shared by hosts knows.
    all.push(results.map(({ status: _status, ...rest }) => rest))
  }
  return all
}
