// Permission rules and Bash hooks see every line a terminal's shell would run: lines run by
// keys other than Enter (Ctrl-O, shell-expand-line, edit-and-execute), lines typed while
// another program has the foreground (the shell reads them once it is back), and lines dsh
// cannot follow (edited with arrows), which are read off the screen or refused.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ScriptStep } from '../../src/llm/index.js'
import { findExecutable } from '../../src/shell/index.js'
import type { TerminalSession } from '../../src/terminal/index.js'
import { useLoopbackModels } from '../support/loopback-model.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import {
  toolCall as call,
  startTerminalLoop,
  type TerminalLoop,
  type TerminalTestContext,
  toolResults,
} from './support.js'

const tempDir = useTempDirs()
const startModel = useLoopbackModels()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

const SHELL = { command: 'bash --norc --noprofile -i', ready: '[$#] $' }
const DENIED = /^Tool call denied/

async function start(
  script: (loop: () => TerminalLoop) => ScriptStep[],
  options: { deny?: string[]; hooks?: Record<string, unknown> } = {},
) {
  let loop: TerminalLoop | undefined
  const model = await startModel(
    script(() => loop!),
    { apiKey: 'k', strict: true },
  )
  loop = await startTerminalLoop({ model, home: tempDir(), cwd: tempDir(), ...options })
  open.push(loop.test)
  return loop
}

const terminalOf = (loop: TerminalLoop): TerminalSession =>
  loop.test.ctx.get('terminals')!.get({ agentId: loop.agent.id }, 't1')!

/** A step that waits until the terminal's foreground program is `program`, then calls the tool. */
const once =
  (loop: () => TerminalLoop, program: string, name: string, args: Record<string, unknown>): ScriptStep =>
  async () => {
    await until(() => terminalOf(loop()).foreground() === program, 10_000, `${program} in the foreground`)
    return call(name, args)
  }

const pwned = (cwd: string) => readdirSync(cwd).filter((name) => name.startsWith('pwned'))

describe('terminal_send under Bash deny rules', () => {
  it('checks lines run by Ctrl-O, Ctrl-J, Esc Ctrl-E and Ctrl-X Ctrl-E, not only by Enter', async () => {
    const loop = await start(
      () => [
        call('terminal_start', SHELL),
        call('terminal_send', { id: 't1', text: 'touch pwned_ctrlo', keys: ['Ctrl-O'] }),
        call('terminal_send', { id: 't1', text: 'touch pwned_ctrlj', keys: ['Ctrl-J'] }),
        // shell-expand-line runs the command substitution without Enter.
        call('terminal_send', { id: 't1', text: 'echo $(touch pwned_expand)', keys: ['Esc', 'Ctrl-E'] }),
        call('terminal_send', { id: 't1', keys: ['Ctrl-C'] }),
        // edit-and-execute runs what the editor leaves: nothing tells what that is.
        call('terminal_send', { id: 't1', text: 'touch pwned_edit', keys: ['Ctrl-X', 'Ctrl-E'] }),
        call('terminal_send', { id: 't1', text: 'echo ok-$((6*7))\n' }),
        call('terminal_read', { id: 't1', wait_for: '^ok-42' }),
        { text: 'done' },
      ],
      { deny: ['Bash(touch *)'] },
    )
    await loop.agent.prompt('go')
    const [, ctrlO, ctrlJ, expand, , edit, echo, read] = toolResults(loop.agent)
    expect(ctrlO).toMatch(DENIED)
    expect(ctrlJ).toMatch(DENIED)
    expect(expand).toMatch(DENIED)
    expect(edit).toMatch(/^Tool call denied: cannot check terminal_send against the permission rules/)
    expect(echo).toMatch(/^sent/)
    expect(read).toMatch(/^ok-42$/m)
    expect(pwned(loop.agent.cwd)).toEqual([])
  })

  it('follows a line continued with a backslash or an open quote, and refuses history expansion', async () => {
    const loop = await start(
      () => [
        call('terminal_start', SHELL),
        // Split over two calls: the shell runs `touch pwned_continued` once the second arrives.
        call('terminal_send', { id: 't1', text: 'tou\\\n' }),
        call('terminal_send', { id: 't1', text: 'ch pwned_continued\n' }),
        call('terminal_send', { id: 't1', keys: ['Ctrl-C'] }),
        call('terminal_send', { id: 't1', text: 'echo "a\n$(touch pwned_quoted)"\n' }),
        call('terminal_send', { id: 't1', keys: ['Ctrl-C'] }),
        // `: touch x` runs nothing; `!:1-2` would run `touch pwned_history`.
        call('terminal_send', { id: 't1', text: ': touch pwned_history\n' }),
        call('terminal_send', { id: 't1', text: '!:1-2\n' }),
        call('terminal_send', { id: 't1', text: 'echo cont-$((6*7))\n' }),
        call('terminal_read', { id: 't1', wait_for: '^cont-42' }),
        { text: 'done' },
      ],
      { deny: ['Bash(touch *)'] },
    )
    await loop.agent.prompt('go')
    const [, first, second, , quoted, , colon, history, echo, read] = toolResults(loop.agent)
    expect(first).toMatch(/^sent/)
    expect(second).toMatch(DENIED)
    expect(quoted).toMatch(DENIED)
    expect(colon).toMatch(/^sent/)
    expect(history).toMatch(/^Tool call denied: .*history expansion/)
    expect(echo).toMatch(/^sent/)
    expect(read).toMatch(/^cont-42$/m)
    expect(pwned(loop.agent.cwd)).toEqual([])
  })

  it('refuses a line edited with keys dsh cannot follow unless the screen shows it', async () => {
    const loop = await start(
      () => [
        call('terminal_start', SHELL),
        // Edited and run in one call: the screen cannot show the line yet.
        call('terminal_send', { id: 't1', text: 'touch pwned_left', keys: ['Left', 'Enter'] }),
        // Edited in one call, run in the next: the screen shows it.
        call('terminal_send', { id: 't1', text: 'touch pwned_later', keys: ['Left'] }),
        call('terminal_read', { id: 't1' }),
        call('terminal_send', { id: 't1', keys: ['Enter'] }),
        call('terminal_send', { id: 't1', text: ' more\n' }),
        call('terminal_send', { id: 't1', keys: ['Ctrl-C'] }),
        // A harmless line edited the same way runs.
        call('terminal_send', { id: 't1', text: 'echo fine-$((6*7))', keys: ['Left'] }),
        call('terminal_read', { id: 't1' }),
        call('terminal_send', { id: 't1', keys: ['Enter'] }),
        call('terminal_read', { id: 't1', wait_for: '^fine-42' }),
        { text: 'done' },
      ],
      { deny: ['Bash(touch *)'] },
    )
    await loop.agent.prompt('go')
    const [, sameCall, , , later, more, , , , fine, read] = toolResults(loop.agent)
    expect(sameCall).toMatch(/^Tool call denied: cannot check terminal_send .*Enter in its own call/)
    expect(later).toMatch(/^Tool call denied: denied by the permission rule Bash\(touch \*\)/)
    expect(more).toMatch(/^Tool call denied: denied by the permission rule Bash\(touch \*\)/)
    expect(fine).toMatch(/^sent/)
    expect(read).toMatch(/^fine-42$/m)
    expect(pwned(loop.agent.cwd)).toEqual([])
  })

  it('checks lines typed ahead while another program has the foreground, and shows them to Bash hooks', async () => {
    const dir = tempDir()
    const log = join(dir, 'bash-hook.log')
    const loop = await start(
      (loop) => [
        call('terminal_start', SHELL),
        // The sleep ends by itself: the shell then reads what was typed meanwhile.
        call('terminal_send', { id: 't1', text: 'sleep 4\n' }),
        once(loop, 'sleep', 'terminal_send', { id: 't1', text: 'touch pwned_typeahead\n' }),
        call('terminal_send', { id: 't1', text: 'touch pwned_edited', keys: ['Left', 'Enter'] }),
        call('terminal_send', { id: 't1', text: 'echo typed-$((6*7))\n' }),
        call('terminal_read', { id: 't1', wait_for: '^typed-42' }),
        { text: 'done' },
      ],
      {
        deny: ['Bash(touch *)'],
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}` }] },
          ],
        },
      },
    )
    await loop.agent.prompt('go')
    const [, , typeahead, edited, echo, read] = toolResults(loop.agent)
    expect(typeahead).toMatch(/^Tool call denied: denied by the permission rule Bash\(touch \*\)/)
    expect(edited).toMatch(DENIED)
    expect(echo).toMatch(/^sent/)
    expect(read).toMatch(/^typed-42$/m)
    const commands = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { tool_input: { command: string } }).tool_input.command)
    expect(commands).toContain('touch pwned_typeahead')
    expect(commands).toContain('echo typed-$((6*7))')
    expect(pwned(loop.agent.cwd)).toEqual([])
  })

  itRequires(findExecutable('vim') !== undefined, 'vim')(
    'lets keys through to a full-screen program the shell started (it reads them itself)',
    async () => {
      const loop = await start(
        (loop) => [
          call('terminal_start', SHELL),
          call('terminal_send', { id: 't1', text: 'vim -u NONE -N notes.txt\n' }),
          // Once vim reads keys as they come (raw mode): before that the tty still keeps lines.
          async () => {
            await until(
              () => terminalOf(loop()).foreground() === 'vim' && terminalOf(loop()).readsKeysAtOnce(),
              10_000,
              'vim reading keys at once',
            )
            return call('terminal_send', { id: 't1', text: 'ihello', keys: ['Esc'] })
          },
          call('terminal_send', { id: 't1', text: ':wq\n' }),
          { text: 'done' },
        ],
        { deny: ['Bash(touch *)'] },
      )
      await loop.agent.prompt('go')
      const [, , insert, write] = toolResults(loop.agent)
      expect(insert).toMatch(/^sent/)
      expect(write).toMatch(/^sent/)
      await until(() => existsSync(join(loop.agent.cwd, 'notes.txt')), 10_000, 'vim to write notes.txt')
      expect(readFileSync(join(loop.agent.cwd, 'notes.txt'), 'utf8')).toBe('hello\n')
    },
  )
})
