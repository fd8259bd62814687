// The interactive chat on a real pseudo-terminal (tmux): it streams an answer, Ctrl-C
// interrupts the running turn without ending the chat, and Ctrl-D exits cleanly.

import { execFileSync, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, expect, it } from 'vitest'
import { type LoopbackModel, startLoopbackModel } from '../../support/loopback-model.js'
import { itRequires } from '../../support/requires.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, CLI, type CliWorld, jsonLines, makeWorld, runCli } from './cli.js'

const TMUX = '/usr/bin/tmux'
const hasTmux = spawnSync(TMUX, ['-V']).status === 0
const itWithTmux = itRequires(hasTmux, TMUX)

const makeDir = useTempDirs('dsh-cli-chat-')
let model: LoopbackModel | undefined
let socket: string | undefined

beforeAll(assertBuilt)
afterEach(async () => {
  if (socket) spawnSync(TMUX, ['-L', socket, 'kill-server'])
  socket = undefined
  await model?.close()
  model = undefined
})

function tmux(...args: string[]): string {
  return execFileSync(TMUX, ['-L', socket!, ...args], { encoding: 'utf8' })
}

const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'chat', '-S', '-200')

async function waitFor(text: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const shown = screen()
    if (shown.includes(text)) return shown
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${shown}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Starts `dsh` (no arguments) in a fresh tmux server that inherits the world's environment. */
async function startChat(w: CliWorld): Promise<void> {
  socket = `dsh-chat-${randomUUID()}`
  const size = ['-x', '160', '-y', '50']
  execFileSync(
    TMUX,
    ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'chat', ...size, '-c', w.project],
    {
      env: { ...w.env, TMUX: undefined } as NodeJS.ProcessEnv,
    },
  )
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}; echo "dsh-exit=$?"`
  tmux('send-keys', '-t', 'chat', command, 'Enter')
  await waitFor('/help for commands')
}

itWithTmux('streams answers, survives Ctrl-C during a turn, and exits on Ctrl-D', async () => {
  const slow = Array.from({ length: 30 }, (_, i) => `word${i + 1}`).join(' ')
  model = await startLoopbackModel([
    { text: 'Hello from the loopback model.', delayMs: 10 },
    { text: slow, delayMs: 150 },
    { text: 'Still here after Ctrl-C.' },
  ])
  const w = makeWorld(makeDir(), model.baseUrl)
  await startChat(w)

  tmux('send-keys', '-t', 'chat', 'hello', 'Enter')
  await waitFor('Hello from the loopback model.')

  tmux('send-keys', '-t', 'chat', 'count slowly', 'Enter')
  await waitFor('word2 ')
  tmux('send-keys', '-t', 'chat', 'C-c')
  const interrupted = await waitFor('(interrupted)')
  // It streamed: part of the answer was on screen, the rest never came.
  expect(interrupted).toContain('word1')
  expect(interrupted).not.toContain('word30')

  tmux('send-keys', '-t', 'chat', 'are you still there?', 'Enter')
  await waitFor('Still here after Ctrl-C.')
  tmux('send-keys', '-t', 'chat', '/session', 'Enter')
  const described = await waitFor('log      ')
  const id = /session {2}(\S+)/.exec(described)![1]!
  tmux('send-keys', '-t', 'chat', 'C-d')
  await waitFor('dsh-exit=0')

  const list = await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })
  const [row] = JSON.parse(list.stdout) as { id: string; turns: number; path: string }[]
  expect(row).toMatchObject({ id, turns: 3 })
  const ends = jsonLines(readFileSync(row!.path, 'utf8')).filter((line) => line.type === 'turn/end')
  expect(ends.map((line) => (line.data as { reason: string }).reason)).toEqual([
    'completed',
    'aborted',
    'completed',
  ])
  // The third request carried the interrupted turn's history.
  expect(model.requests[2]!.messages.map((message) => message.content)).toContain('count slowly')
})

itWithTmux('/fork continues in a seeded session; Ctrl-C clears a typed line, then exits', async () => {
  model = await startLoopbackModel([{ text: 'The first answer.' }, { text: 'Answer in the fork.' }])
  const w = makeWorld(makeDir(), model.baseUrl)
  await startChat(w)
  tmux('send-keys', '-t', 'chat', 'remember the word walnut', 'Enter')
  await waitFor('The first answer.')
  tmux('send-keys', '-t', 'chat', '/fork', 'Enter')
  const forked = await waitFor('(forked from ')
  const [, childId, parentId] = /session (\S+) \(forked from (\S+)\)/.exec(forked)!
  tmux('send-keys', '-t', 'chat', 'a line I regret', 'C-c')
  await waitFor('a line I regret^C')
  tmux('send-keys', '-t', 'chat', 'what was the word?', 'Enter')
  await waitFor('Answer in the fork.')
  tmux('send-keys', '-t', 'chat', 'C-c')
  await waitFor('dsh-exit=0')

  // The fork's request carried the parent's turn; the cleared line was never sent.
  const contents = model.requests[1]!.messages.map((message) => message.content)
  expect(contents).toEqual(expect.arrayContaining(['remember the word walnut', 'The first answer.']))
  expect(contents.join('\n')).not.toContain('regret')
  const rows = JSON.parse(
    (await runCli(['sessions', 'list', '--json'], { env: w.env, cwd: w.project })).stdout,
  )
  expect(rows).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ id: childId, parentSession: parentId, turns: 2 }),
      expect.objectContaining({ id: parentId, parentSession: null, turns: 1 }),
    ]),
  )
})

itWithTmux('asks before a tool call a hook marks "ask": yes runs it, no denies it', async () => {
  model = await startLoopbackModel([
    { toolCalls: [{ name: 'bash', arguments: { command: 'echo approved-ran > approved.txt' } }] },
    { text: 'First call done.' },
    { toolCalls: [{ name: 'bash', arguments: { command: 'echo denied-ran > denied.txt' } }] },
    { text: 'Second call done.' },
  ])
  const dir = makeDir()
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
  await startChat(w)

  tmux('send-keys', '-t', 'chat', 'write the first file', 'Enter')
  await waitFor('allow? [y/N]')
  tmux('send-keys', '-t', 'chat', 'y', 'Enter')
  await waitFor('First call done.')
  tmux('send-keys', '-t', 'chat', 'write the second file', 'Enter')
  const asked = await waitFor('denied-ran > denied.txt')
  expect(asked).toContain('writes a file')
  tmux('send-keys', '-t', 'chat', 'n', 'Enter')
  await waitFor('Second call done.')
  tmux('send-keys', '-t', 'chat', 'C-d')
  await waitFor('dsh-exit=0')

  expect(existsSync(join(w.project, 'approved.txt'))).toBe(true)
  expect(existsSync(join(w.project, 'denied.txt'))).toBe(false)
  const denied = model.requests[3]!.messages.find(
    (message) => message.role === 'tool' && message.content.includes('denied'),
  )
  expect(denied?.content).toContain('writes a file')
})
