// Context management in the interactive chat (tmux, built CLI, the strict stand-in with a
// window): /context adds up to the server's count, /compact sends the user's words to the
// summary request and Ctrl-C cancels it, the status line shows the share of the window, and
// an automatic compaction in a turn is shown and marked in the /resume recap.

import { beforeAll, expect, it } from 'vitest'
import { ESTIMATE_ERROR } from '../../../src/context/index.js'
import type { ScriptRequest } from '../../../src/llm/index.js'
import {
  isSummaryRequest,
  SUMMARY_REQUEST_MARK,
  turnPrompt,
  workScript,
} from '../../support/compaction-script.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, runCli, useModelWorlds } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-compact-')
const startWorld = useModelWorlds(makeDir)
const startChat = useChatTerminals()

beforeAll(assertBuilt)

const BOUNDARY_LINE = /context compacted: [\d.]+k? → [\d.]+k? tokens/
const CATEGORIES = [
  'system prompt',
  'tool definitions',
  'instructions files',
  'messages',
  'tool outputs',
  'reasoning',
]

const answer = (request: ScriptRequest) =>
  isSummaryRequest(request)
    ? { reasoning: 'Summing up.', text: '1. Task: greet\n6. Next steps: none' }
    : { reasoning: 'Easy enough.', text: `answer to ${turnPrompt(request)}` }

function tokens(text: string): number {
  return Number(text.replace(/,/g, ''))
}

it('/context adds up to the last prompt_tokens within the estimate error; /compact reaches the summary request', async () => {
  const window = 64_000
  const w = await startWorld(
    Array.from({ length: 6 }, () => answer),
    {
      strict: { contextWindow: window },
      config: `  contextWindow: ${window}\n`,
    },
  )
  const t = await startChat(w, ['--session-id', 'ctx-chat'])
  t.type('hello there')
  t.keys('Enter')
  await t.waitFor('answer to hello there')
  await t.waitFor(/ctx \d+%/)

  t.type('/context')
  t.keys('Enter')
  const screen = await t.waitFor(/^\s+total\s+[\d,]+/m)
  const rows = new Map<string, number>()
  for (const label of [...CATEGORIES, 'total']) {
    const match = new RegExp(`^\\s+${label}\\s+([\\d,]+)`, 'm').exec(screen)
    expect(match, label).not.toBeNull()
    rows.set(label, tokens(match![1]!))
  }
  const total = rows.get('total')!
  expect(CATEGORIES.reduce((sum, label) => sum + rows.get(label)!, 0)).toBe(total)
  expect(rows.get('system prompt')).toBeGreaterThan(0)
  expect(rows.get('tool definitions')).toBeGreaterThan(0)
  expect(screen).toContain("the server's count of the last request plus an estimate")
  // The server's own count of the last request, from the log.
  const log = jsonLines(
    (await runCli(['sessions', 'show', '--json', 'ctx-chat'], { env: w.env, cwd: w.project })).stdout,
  )
  const usage = log.filter((line) => line.type === 'assistant/message').at(-1)!.data as {
    usage: { promptTokens: number }
  }
  expect(Math.abs(total - usage.usage.promptTokens)).toBeLessThanOrEqual(
    usage.usage.promptTokens * ESTIMATE_ERROR,
  )
  expect(screen).toMatch(new RegExp(`context window ${(window / 1000).toFixed(0)},000 tokens, \\d+% used`))

  t.type('/compact focus on the tests')
  t.keys('Enter')
  await t.waitFor(BOUNDARY_LINE)
  const summary = w.model.requests.at(-1)!.messages.at(-1)!
  expect(summary.role).toBe('user')
  expect(summary.content).toContain(SUMMARY_REQUEST_MARK)
  expect(summary.content).toContain('focus on the tests')
  await t.waitFor(/ctx \d+%/)

  t.type('and now?')
  t.keys('Enter')
  await t.waitFor('answer to and now?')
  expect(JSON.stringify(w.model.requests.at(-1)!.messages)).toContain('1. Task: greet')
})

it('Ctrl-C cancels /compact and leaves the session as it was', async () => {
  const stalled = (request: ScriptRequest) =>
    isSummaryRequest(request) ? { stallMs: 30_000, text: 'too late' } : answer(request)
  const w = await startWorld([stalled, stalled, stalled], { strict: true })
  const t = await startChat(w, ['--session-id', 'cancel-chat'])
  t.type('hello')
  t.keys('Enter')
  await t.waitFor('answer to hello')
  t.type('/compact')
  t.keys('Enter')
  await t.waitFor('compacting context… ')
  t.keys('C-c')
  await t.waitFor('(compaction cancelled; the session is unchanged)')
  t.type('still there?')
  t.keys('Enter')
  await t.waitFor('answer to still there?')
  const log = jsonLines(
    (await runCli(['sessions', 'show', '--json', 'cancel-chat'], { env: w.env, cwd: w.project })).stdout,
  )
  expect(log.some((line) => line.type === 'context/compacted')).toBe(false)
})

it('shows an automatic compaction in a turn, and marks it in the /resume recap', async () => {
  const window = 16_000
  const work = workScript({ calls: 8, lines: 260 })
  const w = await startWorld(work.script, {
    strict: { contextWindow: window },
    config: `  contextWindow: ${window}\n`,
  })
  const t = await startChat(w, ['--session-id', 'auto-chat'])
  t.type('work one')
  t.keys('Enter')
  await t.waitFor('finished: work one')
  const screen = t.screen()
  expect(screen).toContain('compacting context…')
  expect(screen).toMatch(BOUNDARY_LINE)
  t.type('/clear')
  t.keys('Enter')
  await t.waitFor('(new)')
  t.type('/resume auto-chat')
  t.keys('Enter')
  const recap = await t.waitFor('recap: the last')
  expect(recap.slice(recap.indexOf('recap: the last'))).toMatch(BOUNDARY_LINE)
}, 120_000)
