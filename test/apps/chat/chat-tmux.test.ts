// The interactive chat on a real pseudo-terminal (tmux) against a loopback model:
// streaming, Ctrl-C, paste, queued typing, markdown, tool failures, the spinner,
// history across restarts, Tab completion, escape sequences from tools, and /fork.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { type LoopbackModel, useLoopbackModels } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, jsonLines, makeWorld, runCli } from '../cli/cli.js'
import { READY, useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-tmux-')
const startChat = useChatTerminals()
const startModel = useLoopbackModels()

beforeAll(assertBuilt)

function userMessages(model: LoopbackModel, index: number): string[] {
  return model.requests[index]!.messages.filter((m) => m.role === 'user').map((m) => m.content as string)
}

it('streams answers, survives Ctrl-C during a turn (the session resumes), and exits on Ctrl-D', async () => {
  const slow = Array.from({ length: 30 }, (_, i) => `word${i + 1}`).join(' ')
  const model = await startModel([
    { text: 'Hello from the loopback model.', delayMs: 10 },
    { text: slow, delayMs: 150 },
    { text: 'Still here after Ctrl-C.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w)

  t.type('hello')
  t.keys('Enter')
  await t.waitFor('Hello from the loopback model.')
  t.type('count slowly')
  t.keys('Enter')
  await t.waitFor('word2 ')
  t.keys('C-c')
  const interrupted = await t.waitFor('(interrupted)')
  expect(interrupted).toContain('word1')
  expect(interrupted).not.toContain('word30')

  t.type('are you still there?')
  t.keys('Enter')
  await t.waitFor('Still here after Ctrl-C.')
  t.type('/session')
  t.keys('Enter')
  const described = await t.waitFor('log      ')
  const id = /session {2}(\S+)/.exec(described)![1]!
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')

  const [row] = JSON.parse(
    (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
  )
  expect(row).toMatchObject({ id, turns: 3 })
  const ends = jsonLines(readFileSync(row.path, 'utf8')).filter((line) => line.type === 'turn/end')
  expect(ends.map((line) => (line.data as { reason: string }).reason)).toEqual([
    'completed',
    'aborted',
    'completed',
  ])
  expect(model.requests[2]!.messages.map((message) => message.content)).toContain('count slowly')
})

it('a multi-line paste is one prompt; Ctrl-J and \\+Enter add lines; a long paste shows as [pasted N lines]', async () => {
  const model = await startModel([{ text: 'Got the short paste.' }, { text: 'Got the long paste.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w)

  t.paste('line one\nline two')
  t.keys('C-j')
  t.type('line three\\')
  t.keys('Enter')
  t.type('line four')
  await t.waitFor('  line three')
  t.keys('Enter')
  await t.waitFor('Got the short paste.')
  expect(userMessages(model, 0)).toEqual(['line one\nline two\nline three\nline four'])

  const long = Array.from({ length: 12 }, (_, i) => `pasted row ${i + 1}`).join('\n')
  t.paste(long)
  await t.waitFor('[pasted 12 lines]')
  t.keys('Enter')
  await t.waitFor('Got the long paste.')
  expect(model.requests).toHaveLength(2)
  expect(userMessages(model, 1).at(-1)).toBe(long)
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})

it('typing during a reply is queued (shown as queued) and runs next; Ctrl-C gives queued text back', async () => {
  const slow = Array.from({ length: 25 }, (_, i) => `slow${i + 1}`).join(' ')
  const model = await startModel([
    { text: slow, delayMs: 80 },
    { text: 'Answer to the queued prompt.' },
    { text: 'another slow reply '.repeat(20), delayMs: 100 },
    { text: 'Answer after the restore.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w)

  t.type('first')
  t.keys('Enter')
  await t.waitFor('slow2 ')
  t.type('second prompt typed while streaming')
  t.keys('Enter')
  const queued = await t.waitFor('queued: second prompt typed while streaming')
  expect(queued).not.toContain('Answer to the queued prompt.')
  await t.waitFor('Answer to the queued prompt.')
  expect(userMessages(model, 1)).toEqual(['first', 'second prompt typed while streaming'])
  // The streamed answer is intact: typed text never landed inside it.
  const screen = t.screen()
  expect(screen).toContain('slow24 slow25')
  expect(screen).not.toMatch(/slow\d+second/)

  t.type('third')
  t.keys('Enter')
  await t.waitFor('another slow reply another')
  t.type('kept after interrupt')
  t.keys('Enter')
  await t.waitFor('queued: kept after interrupt')
  t.keys('C-c')
  await t.waitFor('(interrupted)')
  await t.waitFor(/> kept after interrupt\s*\n.*session/)
  t.keys('Enter')
  await t.waitFor('Answer after the restore.')
  expect(userMessages(model, 3).at(-1)).toBe('kept after interrupt')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})

it('renders markdown as it streams: headings, emphasis, lists, tables and highlighted code', async () => {
  const answer = [
    '# Release notes',
    '',
    'This is **important** and `inline code`.',
    '',
    '- first point',
    '- second point',
    '',
    '| file | lines |',
    '| --- | --- |',
    '| a.ts | 12 |',
    '',
    '```ts',
    'const answer: number = 42',
    '```',
    '',
    'The end.',
  ].join('\n')
  const model = await startModel([{ text: answer, delayMs: 5 }])
  const w = makeWorld(makeDir(), model.baseUrl)
  w.env.NO_COLOR = undefined
  const t = await startChat(w)
  t.type('notes please')
  t.keys('Enter')
  const screen = await t.waitFor('The end.')
  expect(screen).toMatch(/Release notes\n\nThis is important/)
  expect(screen).not.toContain('# Release')
  expect(screen).toContain('This is important and inline code.')
  expect(screen).toContain('• first point')
  expect(screen).toContain('file │ lines')
  expect(screen).toContain('a.ts │ 12')
  expect(screen).not.toContain('```')
  expect(screen).toContain('  const answer: number = 42')
  const coloured = t.screenWithEscapes()
  // Bold for **important**, and the code line is highlighted (a colour right before `const`).
  const ESC = '\u001b'
  expect(coloured).toMatch(new RegExp(`${ESC}\\[[0-9;]*1m[^\\n]*important`))
  expect(coloured).toMatch(new RegExp(`${ESC}\\[[0-9;]*3\\dm(?:${ESC}\\[[0-9;]*m)*const`))
})

it('a failing command shows its exit code and stderr; escape sequences from a tool reach the screen escaped', async () => {
  const command =
    'echo partial output; echo "fatal: no such thing" >&2; ' +
    "printf '\\033]0;PWNED-TITLE\\007\\033]52;c;c2VjcmV0\\007\\033[2J\\033[10;10H'; exit 3"
  const model = await startModel([
    { toolCalls: [{ name: 'bash', arguments: { command } }] },
    { text: 'It failed as expected.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w)
  t.type('run the failing thing')
  t.keys('Enter')
  const screen = await t.waitFor('It failed as expected.')
  expect(screen).toContain('fatal: no such thing')
  expect(screen).toContain('✗ exit 3')
  // Shown escaped, never executed: the title, clipboard, clear-screen and cursor moves.
  expect(screen).toContain('\\e]0;PWNED-TITLE\\x07')
  expect(screen).toContain('\\e]52;c;c2VjcmV0\\x07')
  expect(screen).toContain('\\e[2J\\e[10;10H')
  expect(screen).toContain('run the failing thing') // the screen was not cleared
})

it('shows a spinner with elapsed time while the model thinks', async () => {
  // The model answers only once the test has seen the spinner count a second or two.
  let seen: () => void = () => {}
  const spinnerSeen = new Promise<void>((resolve) => {
    seen = resolve
  })
  const model = await startModel([
    async () => {
      await spinnerSeen
      return { text: 'Finally an answer.' }
    },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w)
  t.type('take your time')
  t.keys('Enter')
  await t.waitFor(/thinking… [1-9][0-9]*s/)
  seen()
  const done = await t.waitFor('Finally an answer.')
  expect(done.split('\n').filter((line) => line.includes('thinking…'))).toEqual([])
})

it('shows a retry notice while a rate-limited request waits, then the answer; /effort changes the status line', async () => {
  const model = await startModel([
    { status: 429, retryAfter: 2, message: 'rate limited' },
    { text: 'Answer after the retry.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  const config = join(w.home, 'config.yaml')
  writeFileSync(config, readFileSync(config, 'utf8').replace('maxRetries: 0', 'maxRetries: 3'))
  const t = await startChat(w)
  t.type('hello')
  t.keys('Enter')
  const waiting = await t.waitFor(/retrying in 2 s \(2\/4\)/)
  expect(waiting).toContain('rate limited')
  await t.waitFor(/retrying in [12]s…/)
  await t.waitFor('Answer after the retry.')
  t.type('/effort low')
  t.keys('Enter')
  await t.waitFor('effort low from the next turn on')
  await t.waitFor(/\(low\) · session/)
  // The status line and /cost carry the session's estimated cost (the one usage derivation).
  await t.waitFor(/session [0-9a-f]{8} · ctx \S+ · \S+ tokens ~\$\d/)
  t.type('/cost')
  t.keys('Enter')
  await t.waitFor(/cost {4}~\$\d[\d.]* \(estimated from the price table\)/)
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})

it('history survives a restart (Up recalls it, Ctrl-R finds it); Tab completes /he to /help', async () => {
  const model = await startModel([{ text: 'First run answer.' }, { text: 'Second run answer.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  let t = await startChat(w)
  t.type('remember the zebra')
  t.keys('Enter')
  await t.waitFor('First run answer.')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  t.kill()

  t = await startChat(w)
  t.keys('Up')
  await t.waitFor(/> remember the zebra\s*\n/)
  t.keys('C-u')
  t.keys('C-r')
  t.type('zeb')
  await t.waitFor("(reverse-i-search)`zeb': remember the zebra")
  t.keys('Enter')
  await t.waitFor('Second run answer.')
  expect(userMessages(model, 1)).toEqual(['remember the zebra'])

  t.type('/he')
  t.keys('Tab')
  await t.waitFor(/> \/help \s*\n/)
  t.keys('Enter')
  await t.waitFor('Ctrl-R searches it')
  t.type('/hepl')
  t.keys('Enter')
  await t.waitFor('unknown command /hepl — did you mean /help?')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
})

it('keeps keys typed while the chat is still starting, as one prompt', async () => {
  const model = await startModel([{ text: 'Early bird answer.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w, [], false)
  t.type('typed before the banner')
  await t.waitFor(READY)
  t.keys('Enter')
  await t.waitFor('Early bird answer.')
  expect(userMessages(model, 0)).toEqual(['typed before the banner'])
})

it('bare dsh takes chat options: -m and --continue; /resume shows a recap; /fork continues in a seeded session', async () => {
  const model = await startModel([
    { text: 'The first answer.' },
    { text: 'Answer after continue.' },
    { text: 'Answer in the fork.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  let t = await startChat(w, ['-m', 'model-from-flag'])
  t.type('remember the word walnut')
  t.keys('Enter')
  await t.waitFor('The first answer.')
  expect(model.requests[0]!.model).toBe('model-from-flag')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  t.kill()

  t = await startChat(w, ['--continue'])
  await t.waitFor('(resumed)')
  t.type('/sessions')
  t.keys('Enter')
  await t.waitFor('/resume <n> or /resume <id>')
  t.type('and now?')
  t.keys('Enter')
  await t.waitFor('Answer after continue.')
  expect(userMessages(model, 1)).toEqual(['remember the word walnut', 'and now?'])
  t.type('/fork')
  t.keys('Enter')
  const forked = await t.waitFor('(forked from ')
  const [, childId, parentId] = /session (\S+) \(forked from (\S+)\)/.exec(forked)!
  t.type('what was the word?')
  t.keys('Enter')
  await t.waitFor('Answer in the fork.')
  expect(userMessages(model, 2)).toEqual(['remember the word walnut', 'and now?', 'what was the word?'])
  t.type('/resume 2')
  t.keys('Enter')
  const recap = await t.waitFor('recap: the last 2 of 2 turns')
  expect(recap).toContain(`session ${parentId} (resumed)`)
  expect(recap).toMatch(/> and now\?\s*\n\s+Answer after continue\./)
  expect(childId).not.toBe(parentId)
  t.keys('C-c')
  await t.waitFor('dsh-exit=0')
})

it('asks before a tool call a hook marks "ask", showing exactly what will run: y runs it, n denies it', async () => {
  const model = await startModel([
    { toolCalls: [{ name: 'bash', arguments: { command: 'echo approved-ran > approved.txt' } }] },
    { text: 'First call done.' },
    { toolCalls: [{ name: 'bash', arguments: { command: 'echo denied-ran > denied.txt' } }] },
    { text: 'Second call done.' },
  ])
  const dir = makeDir()
  const { existsSync } = await import('node:fs')
  const settings = join(dir, 'settings.json')
  const decision = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: 'writes a file',
    },
  }
  writeFileSync(
    settings,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: `echo '${JSON.stringify(decision)}'` }] },
        ],
      },
    }),
  )
  const w = makeWorld(dir, model.baseUrl, `hooks:\n  claudeCode: [${settings}]\n`)
  const t = await startChat(w)
  t.type('write the first file')
  t.keys('Enter')
  const asked = await t.waitFor('allow? [y/N]')
  expect(asked).toMatch(/wants to run:\s*\n\s+echo approved-ran > approved\.txt/)
  expect(asked).toContain('writes a file')
  t.keys('y')
  await t.waitFor('First call done.')
  t.type('write the second file')
  t.keys('Enter')
  await t.waitFor(/allow\? \[y\/N\][\s\S]*denied-ran|denied-ran[\s\S]*allow\? \[y\/N\]/)
  t.keys('n')
  await t.waitFor('Second call done.')
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  expect(existsSync(join(w.project, 'approved.txt'))).toBe(true)
  expect(existsSync(join(w.project, 'denied.txt'))).toBe(false)
})

it('after each turn a usage line gives the turn’s tokens and cost and the session’s cost, equal to the log’s sums', async () => {
  const model = await startModel(
    [
      { reasoning: 'Look first.', toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] },
      { reasoning: 'Done.', text: 'First answer.' },
      { reasoning: 'Again.', text: 'Second answer.' },
    ],
    { strict: true },
  )
  const w = makeWorld(makeDir(), model.baseUrl)
  const t = await startChat(w, ['--session-id', 'chat-usage'])
  t.type('say hi')
  t.keys('Enter')
  await t.waitFor(/turn 1 · .* · session ~\$/)
  t.type('again')
  t.keys('Enter')
  const screen = await t.waitFor(/turn 2 · .* · session ~\$[\d.]+/)
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')

  const show = await runCli(['sessions', 'show', '--json', 'chat-usage'], { env: w.env, cwd: w.project })
  const usages = jsonLines(show.stdout)
    .filter((line) => line.type === 'assistant/message')
    .map((line) => (line.data as { usage: Record<string, number> }).usage)
  expect(usages).toHaveLength(3)
  const sum = (steps: Record<string, number>[], key: string) =>
    steps.reduce((total, step) => total + (step[key] ?? 0), 0)
  const lineOf = (turn: number, steps: Record<string, number>[]) => {
    const input = sum(steps, 'promptTokens')
    const percent = Math.round((sum(steps, 'cachedTokens') / input) * 100)
    const reasoning = sum(steps, 'reasoningTokens')
    return `turn ${turn} · ${input.toLocaleString('en-US')} in (${percent}% cache hit) · ${sum(steps, 'completionTokens').toLocaleString('en-US')} out${reasoning > 0 ? ` (${reasoning.toLocaleString('en-US')} reasoning)` : ''} · ~$`
  }
  expect(screen).toContain(lineOf(1, usages.slice(0, 2)))
  expect(screen).toContain(lineOf(2, usages.slice(2)))
  // The session's cost after turn 2 is the one `sessions list` derives from the whole log.
  const [row] = JSON.parse(
    (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
  ) as { usage: { cost: number; inputTokens: number } }[]
  expect(row!.usage.inputTokens).toBe(sum(usages, 'promptTokens'))
  const shown = /turn 2 · .* · session ~\$([\d.]+)/.exec(screen)![1]!
  expect(Number(shown)).toBeCloseTo(row!.usage.cost, 4)
})
