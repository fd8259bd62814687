// The chat's /status, /config, /doctor, /memory and `# note` on a real terminal (tmux)
// against a loopback model: each is in /help and completes with Tab, and a note lands in
// the project's AGENTS.md and in the next request's instructions.

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import type { TmuxTerminal } from '../../support/tmux.js'
import { assertBuilt, useModelWorlds } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-commands-')
const startChat = useChatTerminals()
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

/** Sends a prompt and waits for `answer` (the model's scripted reply). */
async function turn(t: TmuxTerminal, prompt: string, answer: string): Promise<void> {
  t.type(prompt)
  t.keys('Enter')
  await t.waitFor(answer)
}

/** Completes `typed` with Tab, checks the input shows `/name`, and runs it. */
async function complete(t: TmuxTerminal, typed: string, name: string): Promise<void> {
  t.type(typed)
  t.keys('Tab')
  await t.waitFor(new RegExp(`> /${name} \\s*\\n`))
  t.keys('Enter')
}

it('/status shows model, effort, mode, session, context, cost, MCP, hooks, sandbox', async () => {
  const w = await startWorld([{ text: 'Hello there.' }])
  const t = await startChat(w, ['--effort', 'low'])
  t.type('/help')
  t.keys('Enter')
  const help = await t.waitFor('# note appends a line')
  for (const name of ['status', 'config', 'doctor', 'memory']) expect(help).toMatch(new RegExp(`/${name}\\b`))
  t.type('hi')
  t.keys('Enter')
  await t.waitFor('Hello there.')
  await complete(t, '/stat', 'status')
  const screen = await t.waitFor(/web_search +not offered/)
  expect(screen).toMatch(/model +deepseek-flash/)
  expect(screen).toMatch(/effort +low/)
  expect(screen).toMatch(/mode +auto/)
  expect(screen).toMatch(/session +\S+/)
  expect(screen).toMatch(/context +\d+% · \d+ of 1\.0M tokens/)
  expect(screen).toMatch(/cost +~?\$\d/)
  expect(screen).toMatch(/MCP +no servers/)
  expect(screen).toMatch(/hooks +none loaded/)
  expect(screen).toMatch(/sandbox +off/)
})

it('/config prints each value with its source: user file, flag, env, default', async () => {
  const w = await startWorld([])
  const t = await startChat(w, ['--effort', 'max'])
  await complete(t, '/conf', 'config')
  const config = join(w.home, 'config.yaml')
  const screen = await t.waitFor('/config <text> filters')
  expect(screen).toContain(`model.baseUrl`)
  expect(screen).toMatch(new RegExp(`model\\.maxRetries +0 +user file ${config.replace(/\./g, '\\.')}`))
  expect(screen).toMatch(/model\.effort +max +this session \(--effort or \/effort\)/)
  expect(screen).toMatch(/model\.name +deepseek-flash +default/)
  expect(screen).toMatch(new RegExp(`home +${w.home.replace(/\./g, '\\.')} +env DSH_HOME`))
  t.type('/config persistence.backend')
  t.keys('Enter')
  await t.waitFor(/persistence\.backend +jsonl +default/)
})

it('/doctor checks the key, the model server and its models, one line each', async () => {
  const w = await startWorld([])
  const t = await startChat(w)
  await complete(t, '/doc', 'doctor')
  const screen = await t.waitFor(/no problems found|problems? found/)
  expect(screen).toMatch(/ok +API key +set \(DEEPSEEK_API_KEY\)/)
  expect(screen).toContain(`ok      base URL         ${w.model.baseUrl} reachable`)
  expect(screen).toMatch(/ok +models +4 listed, deepseek-flash among them/)
  expect(screen).toMatch(/(ok|note) +clipboard/)
})

it('/memory lists the instruction files; # note appends to AGENTS.md and reaches the next turn', async () => {
  const w = await startWorld([{ text: 'Noted answer.' }])
  const agents = join(w.project, 'AGENTS.md')
  writeFileSync(agents, 'Use tabs.')
  const t = await startChat(w)
  await complete(t, '/mem', 'memory')
  await t.waitFor(new RegExp(`project +${agents.replace(/\./g, '\\.')} +1 line(?!s)`))
  expect(t.screen()).toContain(`${join(w.home, 'AGENTS.md')} (not created yet)`)

  t.type('# Always run the linter before committing')
  t.keys('Enter')
  await t.waitFor(`noted in the project's ${agents}`)
  expect(readFileSync(agents, 'utf8')).toBe('Use tabs.\n- Always run the linter before committing\n')
  t.type('#~ I prefer short answers')
  t.keys('Enter')
  await t.waitFor(`noted in your ${join(w.home, 'AGENTS.md')}`)
  expect(readFileSync(join(w.home, 'AGENTS.md'), 'utf8')).toBe('- I prefer short answers\n')

  t.type('next')
  t.keys('Enter')
  await t.waitFor('Noted answer.')
  const sent = JSON.stringify(w.model.requests[0]!.messages)
  expect(sent).toContain('Always run the linter before committing')
  expect(sent).toContain('I prefer short answers')
  // Notes are not prompts: the only user turn is "next".
  const prompts = w.model.requests[0]!.messages.filter(
    (message) => message.role === 'user' && String(message.content) === 'next',
  )
  expect(prompts).toHaveLength(1)
})

it('#~ with no text is a prompt like # alone: nothing is appended to the user AGENTS.md', async () => {
  const w = await startWorld([{ text: 'First answer.' }, { text: 'Second answer.' }])
  const t = await startChat(w)
  await turn(t, '#~', 'First answer.')
  await turn(t, '#~   ', 'Second answer.')
  expect(existsSync(join(w.home, 'AGENTS.md'))).toBe(false)
  expect(t.screen()).not.toContain('noted in')
  const prompts = w.model.requests[1]!.messages.filter((message) => message.role === 'user')
  expect(prompts.map((message) => message.content)).toEqual(['#~', '#~   '])
})

it('/model refuses a name the server does not list at once; bare /rewind lists the turns that changed files', async () => {
  const write = (file_path: string, content: string) => ({ name: 'write', arguments: { file_path, content } })
  const w = await startWorld([
    { toolCalls: [write('notes.txt', 'one\n')] },
    { text: 'Created the notes.' },
    { text: 'Just talking.' },
    { text: 'On the pro model.' },
  ])
  const t = await startChat(w)
  t.type('create notes')
  t.keys('Enter')
  await t.waitFor('Created the notes.')
  t.type('say something')
  t.keys('Enter')
  await t.waitFor('Just talking.')

  t.type('/rewind')
  t.keys('Enter')
  const listed = await t.waitFor('/rewind <turn> restores the files changed in that turn and later')
  expect(listed).toMatch(/ {3}1 {2}create notes\n {6}\S*notes\.txt/)
  expect(listed).not.toMatch(/ {3}2 {2}say something/)
  expect(readFileSync(join(w.project, 'notes.txt'), 'utf8')).toBe('one\n')

  t.type('/model nosuch-model')
  t.keys('Enter')
  await t.waitFor(
    /unknown model nosuch-model: the server offers deepseek-flash, .*; the model stays as it was/,
  )
  t.type('/model deepseek-v4-pro')
  t.keys('Enter')
  await t.waitFor('model deepseek-v4-pro from the next turn on')
  t.type('go on')
  t.keys('Enter')
  await t.waitFor('On the pro model.')
  expect(w.model.requests.at(-1)!.model).toBe('deepseek-v4-pro')
})

it('an approved edit shows its changed lines, cut with a hint; Ctrl-O prints the whole diff', async () => {
  const before = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n')
  const after = before.replace(/line (\d+)/g, 'LINE $1')
  const edit = (old_string: string, new_string: string) => ({
    name: 'edit',
    arguments: { file_path: 'list.txt', old_string, new_string },
  })
  const w = await startWorld([
    { toolCalls: [{ name: 'read', arguments: { file_path: 'list.txt' } }, edit('line 2\n', 'line two\n')] },
    { text: 'Small edit done.' },
    { toolCalls: [edit(before.replace('line 2\n', 'line two\n'), after)] },
    { text: 'Big edit done.' },
  ])
  writeFileSync(join(w.project, 'list.txt'), `${before}\n`)
  const t = await startChat(w, ['--permission-mode', 'default'])
  t.type('small')
  t.keys('Enter')
  await t.waitFor('allow? [y/N]')
  t.keys('1')
  const small = await t.waitFor('Small edit done.')
  expect(small).toMatch(/⎿ Edited list\.txt \(1 replacement\)/)
  expect(small).toMatch(/^ {4}-line 2$/m)
  expect(small).toMatch(/^ {4}\+line two$/m)
  expect(small).not.toContain('+++ list.txt')

  t.type('big')
  t.keys('Enter')
  await t.waitFor('allow? [y/N]')
  t.keys('1')
  const big = await t.waitFor('Big edit done.')
  expect(big).toMatch(/… \+\d+ lines \(Ctrl-O shows all\)/)
  expect(big).not.toMatch(/^ {4}\+LINE 30$/m)
  t.keys('C-o')
  const expanded = await t.waitFor('the whole diff; Ctrl-O again shows/hides reasoning')
  expect(expanded).toMatch(/^ {4}\+LINE 30$/m)
  t.keys('C-o')
  await t.waitFor('reasoning hidden (Ctrl-O)')
})
