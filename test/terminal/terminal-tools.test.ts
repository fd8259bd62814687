// The terminal tools on real pseudo-terminals: a Python REPL, prompts answered, a TUI's
// screen, Ctrl-C, exit status, the cap, bad input, and scrollback that spills to a file.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findExecutable } from '../../src/shell/index.js'
import { itRequires } from '../support/requires.js'
import { useTempDirs } from '../support/temp-dir.js'
import { screenOf, startTerminalTestContext, type TerminalTestContext } from './support.js'

const tempDir = useTempDirs()
const open: TerminalTestContext[] = []
afterEach(async () => {
  while (open.length > 0) await open.pop()!.dispose()
})

async function start(
  options: Parameters<typeof startTerminalTestContext>[0] extends infer O ? Partial<O> : never = {},
) {
  const test = await startTerminalTestContext({ home: tempDir(), ...options })
  open.push(test)
  const agent = await test.createAgent(`terminal-${open.length}`, tempDir())
  return { test, agent }
}

const hasPython = findExecutable('python3') !== undefined

describe('terminal tools', () => {
  itRequires(hasPython, 'python3')(
    'drives a Python REPL: define a function, call it, read the answer',
    async () => {
      const { test, agent } = await start()
      const started = await test.call(agent, 'terminal_start', { command: 'python3 -q', ready: '>>> ' })
      expect(started).toMatch(/^started terminal t1 \(ready\)/)
      await test.call(agent, 'terminal_send', { id: 't1', text: 'def square(x):\n    return x * x\n\n' })
      await test.call(agent, 'terminal_read', { id: 't1', wait_for: '>>> $' })
      await test.call(agent, 'terminal_send', { id: 't1', text: 'square(12345)\n' })
      // The answer and the next prompt can arrive in separate writes: wait for both.
      const reading = await test.call(agent, 'terminal_read', { id: 't1', wait_for: '152399025\\s+>>> $' })
      expect(screenOf(reading)).toContain('152399025')
      expect(reading).toMatch(/cursor row \d+, col 5\]/) // after the fresh ">>> " prompt
    },
  )

  it('answers a `read -p` prompt and a question/answer program', async () => {
    const { test, agent } = await start()
    const dir = agent.cwd
    writeFileSync(join(dir, 'ask.sh'), 'read -p "Continue? [y/N] " answer\necho "answered $answer"\n')
    await test.call(agent, 'terminal_start', { command: 'bash ask.sh', ready: 'Continue\\? ' })
    await test.call(agent, 'terminal_send', { id: 't1', text: 'y', keys: ['Enter'] })
    expect(await test.call(agent, 'terminal_read', { id: 't1', wait_for: 'answered' })).toContain(
      'answered y',
    )

    // Like `npm init`: several questions, defaults taken with a bare Enter, a summary at the end.
    writeFileSync(
      join(dir, 'init.mjs'),
      [
        "import { createInterface } from 'node:readline/promises'",
        'const rl = createInterface({ input: process.stdin, output: process.stdout })',
        "const name = (await rl.question('package name: (demo) ')) || 'demo'",
        "const version = (await rl.question('version: (1.0.0) ')) || '1.0.0'",
        "const ok = await rl.question('Is this OK? (yes) ')",
        "console.log(ok === 'no' ? 'aborted' : 'wrote ' + name + '@' + version)",
        'rl.close()',
      ].join('\n'),
    )
    await test.call(agent, 'terminal_start', { command: 'node init.mjs', ready: 'package name:' })
    await test.call(agent, 'terminal_send', { id: 't2', text: 'my-tool\n' })
    await test.call(agent, 'terminal_read', { id: 't2', wait_for: 'version:' })
    await test.call(agent, 'terminal_send', { id: 't2', keys: ['Enter'] })
    await test.call(agent, 'terminal_read', { id: 't2', wait_for: 'Is this OK' })
    await test.call(agent, 'terminal_send', { id: 't2', text: 'yes\n' })
    expect(await test.call(agent, 'terminal_read', { id: 't2', wait_for: 'wrote' })).toContain(
      'wrote my-tool@1.0.0',
    )
    // The program ended: its exit status is on the next read.
    expect(await test.call(agent, 'terminal_read', { id: 't2', timeout_ms: 5_000 })).toContain(
      '[exited (exit code 0)]',
    )
  })

  itRequires(findExecutable('less') !== undefined, 'less')(
    'reads a TUI screen (less on a file) and pages it',
    async () => {
      const { test, agent } = await start()
      const file = join(agent.cwd, 'numbers.txt')
      writeFileSync(file, Array.from({ length: 200 }, (_, i) => `line number ${i + 1}`).join('\n'))
      await test.call(agent, 'terminal_start', {
        command: `less ${file}`,
        rows: 10,
        cols: 40,
        ready: 'line number 9',
      })
      let screen = screenOf(await test.call(agent, 'terminal_read', { id: 't1' }))
      expect(screen.split('\n').slice(0, 9)).toEqual(
        Array.from({ length: 9 }, (_, i) => `line number ${i + 1}`),
      )
      await test.call(agent, 'terminal_send', { id: 't1', keys: ['Space'] })
      screen = screenOf(await test.call(agent, 'terminal_read', { id: 't1', wait_for: 'line number 18' }))
      expect(screen.split('\n')[0]).toBe('line number 10')
      await test.call(agent, 'terminal_send', { id: 't1', text: 'q' })
      expect(await test.call(agent, 'terminal_read', { id: 't1', timeout_ms: 5_000 })).toContain(
        '[exited (exit code 0)]',
      )
    },
  )

  it('stops a running program with Ctrl-C and reports the exit', async () => {
    const { test, agent } = await start()
    await test.call(agent, 'terminal_start', { command: 'bash --norc --noprofile -i', ready: '[$#] $' })
    await test.call(agent, 'terminal_send', { id: 't1', text: 'sleep 1000; echo after-sleep\n' })
    await test.call(agent, 'terminal_read', { id: 't1' })
    await test.call(agent, 'terminal_send', { id: 't1', keys: ['Ctrl-C'] })
    await test.call(agent, 'terminal_send', { id: 't1', text: 'echo alive-$((6*7))\n' })
    const reading = await test.call(agent, 'terminal_read', { id: 't1', wait_for: 'alive-42' })
    expect(reading).toContain('^C')
    expect(reading).not.toMatch(/^after-sleep$/m)
    await test.call(agent, 'terminal_send', { id: 't1', text: 'exit 3\n' })
    expect(await test.call(agent, 'terminal_read', { id: 't1', timeout_ms: 5_000 })).toContain('exit code 3')
    // An exited terminal takes no input.
    expect(await test.call(agent, 'terminal_send', { id: 't1', text: 'x' }, true)).toMatch(
      /reads no more input/,
    )
  })

  it('gives ids per session, lists, resizes, kills, and caps how many run', async () => {
    const { test, agent } = await start({ terminals: { maxPerSession: 2, killGraceMs: 500 } })
    const other = await test.createAgent('terminal-other', tempDir())
    await test.call(agent, 'terminal_start', { command: 'sleep 1000' })
    await test.call(agent, 'terminal_start', { command: 'cat' })
    expect(await test.call(other, 'terminal_start', { command: 'sleep 1000' })).toMatch(
      /^started terminal t1/,
    )
    const refused = await test.call(agent, 'terminal_start', { command: 'sleep 1000' }, true)
    expect(refused).toMatch(/too many terminals: .*the cap is 2, config terminals.maxPerSession/)
    expect(await test.call(agent, 'terminal_list', {})).toMatch(
      /^t1 {2}running .*sleep 1000\nt2 {2}running .*cat$/,
    )
    expect(await test.call(agent, 'terminal_resize', { id: 't2', cols: 60, rows: 12 })).toBe(
      'terminal t2 is now 60x12',
    )
    expect(await test.call(agent, 'terminal_read', { id: 't2' })).toContain('· 60x12 ·')
    expect(await test.call(agent, 'terminal_kill', { id: 't1' })).toMatch(/^killed terminal t1/)
    expect(await test.call(agent, 'terminal_read', { id: 't1' }, true)).toMatch(/no terminal t1/)
    // Another agent's t1 is its own: this agent's t1 is gone.
    expect(await test.call(other, 'terminal_list', {})).toMatch(/^t1 {2}running/)
    expect(await test.call(agent, 'terminal_start', { command: 'sleep 1000' })).toMatch(
      /^started terminal t3/,
    )
  })

  it('refuses bad input with one clear line', async () => {
    const { test, agent } = await start()
    await test.call(agent, 'terminal_start', { command: 'cat' })
    expect(await test.call(agent, 'terminal_send', { id: 't1', keys: ['Hyper-X'] }, true)).toMatch(
      /^unknown key "Hyper-X"; known keys:/,
    )
    expect(await test.call(agent, 'terminal_send', { id: 't9', text: 'x' }, true)).toMatch(/^no terminal t9/)
    expect(await test.call(agent, 'terminal_resize', { id: 't1', cols: 1, rows: 10 }, true)).toMatch(/cols/)
    expect(await test.call(agent, 'terminal_start', { command: 'true', cwd: 'nowhere' }, true)).toMatch(
      /working directory does not exist/,
    )
  })

  it('bounds a read of a program that never settles, and caps scrollback with a full-output file', async () => {
    const { test, agent } = await start({
      terminals: { scrollbackLines: 100, maxReadLines: 50, transcriptChars: 10_000 },
    })
    await test.call(agent, 'terminal_start', {
      command: 'i=0; while true; do i=$((i+1)); echo "tick $i"; done',
      rows: 10,
    })
    const reading = await test.call(agent, 'terminal_read', { id: 't1', timeout_ms: 800 })
    expect(reading).toMatch(/\[output did not settle within \d+ ms; shown as it is now\]/)
    const note =
      /\[new scrollback: 50 lines; \d+ earlier lines not shown; (?:older lines dropped from the scrollback; )?full output: (\S+)\]/.exec(
        reading,
      )
    expect(note).not.toBeNull()
    await test.call(agent, 'terminal_kill', { id: 't1' })
    const transcript = readFileSync(note![1]!, 'utf8')
    expect(transcript).toContain('tick 1\n')
    expect(transcript).toContain('tick 500\n')
    expect(note![1]!.startsWith(join(test.home, 'spill'))).toBe(true)
  })

  it('bounds a pattern that backtracks: a clear tool error, and dsh keeps running meanwhile', async () => {
    const { test, agent } = await start()
    // ^(a+)+$ against a run of a's ending in "!" takes seconds (doubling with each a) unbounded.
    const line = `${'a'.repeat(27)}!`
    let last = Date.now()
    let longestStall = 0
    const ticker = setInterval(() => {
      longestStall = Math.max(longestStall, Date.now() - last)
      last = Date.now()
    }, 20)
    const started = Date.now()
    try {
      const result = await test.output(agent, 'terminal_start', {
        command: `echo ${line}; sleep 100`,
        ready: '^(a+)+$',
        timeout_ms: 30_000,
      })
      expect(result.isError).toBe(true)
      expect(result.content).toMatch(
        /^started terminal t1, but the pattern "\^\(a\+\)\+\$" took more than \d+ ms to match/,
      )
      // Typed text is echoed while sleep runs: new output for wait_for.
      await test.call(agent, 'terminal_send', {
        id: 't1',
        text: 'building module alpha beta gamma delta epsilon zeta!',
      })
      const read = await test.output(agent, 'terminal_read', {
        id: 't1',
        wait_for: '^(\\w+\\s?)*$',
        timeout_ms: 30_000,
      })
      expect(read.isError).toBe(true)
      expect(read.content).toMatch(/took more than \d+ ms to match/)
    } finally {
      clearInterval(ticker)
    }
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(longestStall).toBeLessThan(1_500)
  })
})
