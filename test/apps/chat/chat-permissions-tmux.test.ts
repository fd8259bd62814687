// Permission modes and rules, /permissions, /rewind and /init in the real chat on a tmux
// terminal against a loopback model: asserted on the screen and on the files on disk.

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { INIT_PROMPT } from '../../../src/instructions/index.js'
import type { Script } from '../../support/loopback-model.js'
import { useTempDirs } from '../../support/temp-dir.js'
import type { TmuxTerminal } from '../../support/tmux.js'
import { assertBuilt, type CliWorld, type ModelWorld, useModelWorlds } from '../cli/cli.js'
import { useChatTerminals } from './chat-terminal.js'

const makeDir = useTempDirs('dsh-chat-perm-')
const startChat = useChatTerminals()
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

const world = (script: Script, config = '') => startWorld(script, { config })

const ASK = 'allow? [y/N]'
const read = (file_path: string) => ({ name: 'read', arguments: { file_path } })
const write = (file_path: string, content: string) => ({ name: 'write', arguments: { file_path, content } })
const edit = (file_path: string, old_string: string, new_string: string) => ({
  name: 'edit',
  arguments: { file_path, old_string, new_string },
})
const bash = (command: string) => ({ name: 'bash', arguments: { command } })

/** Sends a prompt and waits for `answer` (the model's scripted reply) to be shown. */
async function turn(t: TmuxTerminal, prompt: string, answer: string): Promise<string> {
  t.type(prompt)
  t.keys('Enter')
  return t.waitFor(answer)
}

/**
 * True when the chat asked nothing. An answered question leaves the screen, but an unanswered
 * one blocks the turn, so a turn that reached its final answer without a key press asked nothing.
 */
const askedNothing = (t: TmuxTerminal) => !t.screen().includes(ASK)

/** The tool results the model was sent in its latest request. */
const toolResults = (w: ModelWorld) =>
  w.model.requests
    .at(-1)!
    .messages.filter((message) => message.role === 'tool')
    .map((message) => message.content)

const file = (w: CliWorld, name: string) => join(w.project, name)

it('auto (the default) runs edits and bash inside the project without asking', async () => {
  const w = await world([
    { toolCalls: [write('made.txt', 'made\n'), bash('echo ran > ran.txt')] },
    { text: 'Both done.' },
  ])
  const t = await startChat(w)
  await turn(t, 'make and run', 'Both done.')
  expect(askedNothing(t)).toBe(true)
  expect(readFileSync(file(w, 'made.txt'), 'utf8')).toBe('made\n')
  expect(readFileSync(file(w, 'ran.txt'), 'utf8')).toBe('ran\n')
})

it('default asks before an edit and before a bash command no rule allows; reads run', async () => {
  const w = await world([
    { toolCalls: [{ name: 'ls', arguments: {} }, write('asked.txt', 'yes\n')] },
    { text: 'Write answered.' },
    { toolCalls: [bash('echo no > refused.txt')] },
    { text: 'Bash answered.' },
  ])
  const t = await startChat(w, ['--permission-mode', 'default'])
  t.type('write it')
  t.keys('Enter')
  const asked = await t.waitFor(ASK)
  // The question shows the file and the lines it would get, not the raw JSON arguments.
  expect(asked).toMatch(/write wants to run:\s*\n\s+asked\.txt \(1 line\)\s*\n\s+\+ yes/)
  expect(asked).not.toContain('"file_path"')
  expect(asked).toContain('Write needs approval in default mode (no allow rule covers it)')
  t.keys('y')
  await t.waitFor('Write answered.')
  expect(readFileSync(file(w, 'asked.txt'), 'utf8')).toBe('yes\n')

  t.type('run it')
  t.keys('Enter')
  await t.waitFor(
    /bash wants to run:\s*\n\s+echo no > refused\.txt[\s\S]*Bash needs approval in default mode/,
  )
  t.keys('n')
  await t.waitFor('Bash answered.')
  expect(toolResults(w).at(-1)).toBe(
    'Tool call denied: Bash needs approval in default mode (no allow rule covers it) (approval required and not given)',
  )
  expect(existsSync(file(w, 'refused.txt'))).toBe(false)
})

it('acceptEdits runs the edit without asking but asks before bash', async () => {
  const w = await world([
    { toolCalls: [read('notes.txt'), edit('notes.txt', 'one', 'two')] },
    { text: 'Edited quietly.' },
    { toolCalls: [bash('echo no > refused.txt')] },
    { text: 'Bash answered.' },
  ])
  writeFileSync(file(w, 'notes.txt'), 'one\n')
  const t = await startChat(w, ['--permission-mode', 'acceptEdits'])
  const edited = await turn(t, 'edit the notes', 'Edited quietly.')
  expect(edited).not.toContain(ASK)
  expect(edited).toContain('Edited notes.txt (1 replacement)')
  expect(readFileSync(file(w, 'notes.txt'), 'utf8')).toBe('two\n')

  t.type('run it')
  t.keys('Enter')
  await t.waitFor(/Bash needs approval in acceptEdits mode[\s\S]*allow\? \[y\/N\]/)
  t.keys('n')
  await t.waitFor('Bash answered.')
  expect(toolResults(w).at(-1)).toContain('(approval required and not given)')
  expect(existsSync(file(w, 'refused.txt'))).toBe(false)
})

it('plan refuses a write without asking; /permissions shows the mode and switching to acceptEdits lets it run', async () => {
  const w = await world([
    { toolCalls: [write('plan.txt', 'x\n')] },
    { text: 'Plan: write plan.txt.' },
    { toolCalls: [write('plan.txt', 'x\n')] },
    { text: 'Written after plan mode.' },
  ])
  const t = await startChat(w, ['--permission-mode', 'plan'])
  const planned = await turn(t, 'add plan.txt', 'Plan: write plan.txt.')
  expect(planned).not.toContain(ASK)
  expect(planned).toContain('plan mode is on')
  expect(existsSync(file(w, 'plan.txt'))).toBe(false)
  expect(JSON.stringify(w.model.requests[0]!.messages)).toContain('Plan mode is on')

  t.type('/permissions')
  t.keys('Enter')
  const shown = await t.waitFor('mode     plan: read-only tools only')
  expect(shown).toMatch(/project {2}\S+ \(/)
  expect(shown).toMatch(/deny {5}\(none\)/)
  t.type('/permissions nonsense')
  t.keys('Enter')
  await t.waitFor('unknown mode nonsense; modes: auto, default, acceptEdits, plan, bypassPermissions')
  t.type('/permissions acceptEdits')
  t.keys('Enter')
  await t.waitFor('mode     acceptEdits: file edits inside the project run without asking')
  const written = await turn(t, 'go ahead', 'Written after plan mode.')
  expect(written).not.toContain(ASK)
  expect(readFileSync(file(w, 'plan.txt'), 'utf8')).toBe('x\n')
  // The first turn's plan-mode note stays in the history; the new turn gets none.
  expect(JSON.stringify(w.model.requests[2]!.messages).split('Plan mode is on').length - 1).toBe(1)
})

it('plan: the model presents its plan with exit_plan_mode; n keeps plan mode, y leaves it and the edit asks', async () => {
  const exit = (plan: string) => ({ name: 'exit_plan_mode', arguments: { plan } })
  const w = await world([
    { toolCalls: [exit('1. write plan.txt')] },
    { text: 'Kept planning.' },
    { toolCalls: [exit('1. write plan.txt\n2. check it')] },
    { toolCalls: [write('plan.txt', 'x\n')] },
    { text: 'Carried out.' },
  ])
  const t = await startChat(w, ['--permission-mode', 'plan'])
  t.type('plan it')
  t.keys('Enter')
  const first = await t.waitFor(ASK)
  expect(first).toMatch(
    /exit_plan_mode wants to run:\s*\n\s+leave plan mode and carry out this plan:\s*\n\s+1\. write plan\.txt/,
  )
  t.keys('n')
  await t.waitFor('Kept planning.')
  t.type('/permissions')
  t.keys('Enter')
  await t.waitFor('mode     plan: read-only tools only')

  t.type('the plan is fine')
  t.keys('Enter')
  await t.waitFor(/2\. check it[\s\S]*allow\? \[y\/N\]/)
  t.keys('y')
  // Begun in plan mode, leaving it gives Claude Code's default: the edit asks now.
  await t.waitFor(/write wants to run:\s*\n\s+plan\.txt \(1 line\)/)
  t.keys('y')
  await t.waitFor('Carried out.')
  expect(readFileSync(file(w, 'plan.txt'), 'utf8')).toBe('x\n')
  expect(toolResults(w)[1]).toContain(
    'The user approved your plan. Plan mode is off (permission mode: default)',
  )
})

it('bypassPermissions prints its warning and never asks, also outside the project', async () => {
  const w = await world([
    { toolCalls: [write('../outside.txt', 'out\n'), bash('echo ran > ran.txt')] },
    { text: 'Bypassed.' },
  ])
  const t = await startChat(w, ['--permission-mode', 'bypassPermissions'])
  expect(t.screen()).toContain(
    'dsh: warning: permission mode bypassPermissions: every tool call runs without asking, also outside the project',
  )
  await turn(t, 'write outside', 'Bypassed.')
  expect(askedNothing(t)).toBe(true)
  expect(readFileSync(join(w.project, '..', 'outside.txt'), 'utf8')).toBe('out\n')
  expect(readFileSync(file(w, 'ran.txt'), 'utf8')).toBe('ran\n')
  t.type('/permissions default')
  t.keys('Enter')
  await t.waitFor('mode     default: ask before file edits')
  t.type('/permissions bypassPermissions')
  t.keys('Enter')
  await t.waitFor('warning: every tool call now runs without asking, also outside the project')
})

/** The modes Shift-Tab switched to, in order, from their one-line notices. */
const cycled = (t: TmuxTerminal) => [...t.screen().matchAll(/^mode (\S+): /gm)].map((match) => match[1])

it('Shift-Tab cycles auto → default → acceptEdits → plan → auto as /permissions sets them, not bypassPermissions', async () => {
  const w = await world([{ toolCalls: [write('asked.txt', 'yes\n')] }, { text: 'Write answered.' }])
  const t = await startChat(w)
  t.type('draft')
  t.keys('BTab')
  await t.waitFor('mode default: ask before file edits')
  // The status line names the mode; the input keeps its text (Shift-Tab is not Tab completion).
  expect(t.screen()).toMatch(/> draft\s*\n.* · default mode · /)
  t.keys('C-u')
  t.type('/permissions')
  t.keys('Enter')
  await t.waitFor('mode     default: ask before file edits')
  // The mode is in force: the write asks.
  t.type('write it')
  t.keys('Enter')
  await t.waitFor(ASK)
  t.keys('y')
  await t.waitFor('Write answered.')
  for (const mode of ['acceptEdits', 'plan', 'auto']) {
    t.keys('BTab')
    await t.waitFor(`mode ${mode}: `)
  }
  t.keys('BTab')
  await expect.poll(() => cycled(t)).toEqual(['default', 'acceptEdits', 'plan', 'auto', 'default'])
  expect(t.screen()).not.toContain('bypassPermissions')
})

it('Shift-Tab includes bypassPermissions, with its warning, when the chat was started in it', async () => {
  const w = await world([])
  const t = await startChat(w, ['--permission-mode', 'bypassPermissions'])
  for (const mode of ['auto', 'default', 'acceptEdits', 'plan']) {
    t.keys('BTab')
    await t.waitFor(`mode ${mode}: `)
  }
  t.keys('BTab')
  await t.waitFor(
    /warning: every tool call now runs without asking, also outside the project\s*\nmode bypassPermissions: /,
  )
  expect(cycled(t)).toEqual(['auto', 'default', 'acceptEdits', 'plan', 'bypassPermissions'])
  t.type('/permissions')
  t.keys('Enter')
  await t.waitFor('mode     bypassPermissions: never ask')
})

it('rules: an allow rule runs `npm test` unasked, a deny rule refuses src/**, an ask rule asks before a read', async () => {
  const w = await world(
    [
      { toolCalls: [bash('npm test')] },
      { text: 'Tests ran.' },
      { toolCalls: [write('src/a.ts', 'export {}\n')] },
      { text: 'Write refused.' },
      { toolCalls: [read('secret.txt')] },
      { text: 'Read answered.' },
    ],
    [
      'permissions:',
      '  mode: default',
      '  allow: ["Bash(npm test:*)"]',
      '  deny: ["Edit(src/**)"]',
      '  ask: ["Read(./secret.txt)"]',
      '',
    ].join('\n'),
  )
  writeFileSync(
    file(w, 'package.json'),
    JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo tested > tested.txt' } }),
  )
  writeFileSync(file(w, 'secret.txt'), 'the secret is 42\n')
  const t = await startChat(w)
  await turn(t, 'run the tests', 'Tests ran.')
  expect(askedNothing(t)).toBe(true)
  expect(readFileSync(file(w, 'tested.txt'), 'utf8')).toBe('tested\n')

  const refused = await turn(t, 'add src/a.ts', 'Write refused.')
  expect(refused).toContain('denied by the permission rule Edit(src/**)')
  expect(askedNothing(t)).toBe(true)
  expect(existsSync(file(w, 'src/a.ts'))).toBe(false)

  t.type('read the secret')
  t.keys('Enter')
  await t.waitFor(/the permission rule Read\(\.\/secret\.txt\) asks for approval[\s\S]*allow\? \[y\/N\]/)
  t.keys('n')
  await t.waitFor('Read answered.')
  expect(toolResults(w).at(-1)).toContain('asks for approval (approval required and not given)')
  expect(JSON.stringify(w.model.requests.at(-1)!.messages)).not.toContain('the secret is 42')

  t.type('/permissions')
  t.keys('Enter')
  const shown = await t.waitFor(/allow {4}Bash\(npm test:\*\)/)
  expect(shown).toContain('deny     Edit(src/**)')
  expect(shown).toContain('ask      Read(./secret.txt)')
})

it('/rewind restores a file an edit changed, and refuses, naming the file, once it changed since', async () => {
  const w = await world([
    { toolCalls: [write('notes.txt', 'one\n')] },
    { text: 'Created the notes.' },
    { toolCalls: [read('notes.txt'), edit('notes.txt', 'one', 'two')] },
    { text: 'Edited the notes.' },
  ])
  const t = await startChat(w)
  await turn(t, 'create notes', 'Created the notes.')
  await turn(t, 'edit notes', 'Edited the notes.')
  expect(readFileSync(file(w, 'notes.txt'), 'utf8')).toBe('two\n')

  t.type('/rewind 2')
  t.keys('Enter')
  const restored = await t.waitFor('restored 1 file(s) to how they were before turn 2:')
  expect(restored).toContain('notes.txt')
  expect(restored).toContain('changes made through bash are not undone')
  expect(readFileSync(file(w, 'notes.txt'), 'utf8')).toBe('one\n')

  writeFileSync(file(w, 'notes.txt'), 'changed by hand\n')
  t.type('/rewind 1')
  t.keys('Enter')
  const refused = await t.waitFor(
    'rewind refused: 1 file(s) changed since dsh wrote them; nothing was restored',
  )
  expect(refused).toMatch(/notes\.txt: changed since dsh wrote it/)
  expect(readFileSync(file(w, 'notes.txt'), 'utf8')).toBe('changed by hand\n')
})

it('/init asks the model to write a starter AGENTS.md (the write asks first), which the next session is told', async () => {
  const agents = '# AGENTS.md\n\nBuild with `make`; tests live in test/.\n'
  const w = await world([
    { toolCalls: [{ name: 'ls', arguments: {} }] },
    { toolCalls: [write('AGENTS.md', agents)] },
    { text: 'Wrote AGENTS.md.' },
    { text: 'I read the instructions.' },
  ])
  writeFileSync(file(w, 'Makefile'), 'all:\n\techo built\n')
  let t = await startChat(w)
  t.type('/init')
  t.keys('Enter')
  // AGENTS.md is project configuration: writing it always asks (issue 24).
  await t.waitFor("changes the project's configuration (AGENTS.md)")
  t.keys('y')
  await t.waitFor('Wrote AGENTS.md.')
  const first = w.model.requests[0]!.messages.filter((message) => message.role === 'user')
  expect(first.at(-1)!.content).toBe(INIT_PROMPT)
  expect(readFileSync(file(w, 'AGENTS.md'), 'utf8')).toBe(agents)
  t.keys('C-d')
  await t.waitFor('dsh-exit=0')
  t.kill()

  t = await startChat(w)
  await turn(t, 'hello', 'I read the instructions.')
  expect(JSON.stringify(w.model.requests.at(-1)!.messages)).toContain(
    'Build with `make`; tests live in test/.',
  )
})
