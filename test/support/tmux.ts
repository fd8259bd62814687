// A real pseudo-terminal for chat tests: a private tmux server per test, keys sent with
// send-keys, pastes with paste-buffer -p (bracketed), the screen read with capture-pane.
// tmux is required: a missing tmux fails the test (CI installs it), it never skips.

import { execFileSync, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'

const TMUX = 'tmux'

export interface TmuxTerminal {
  /** Sends keys (tmux key names such as `Enter`, `C-c`, or literal text). */
  keys(...keys: string[]): void
  /** Sends literal text (no key-name lookup). */
  type(text: string): void
  /** Pastes `text` as a bracketed paste, as a terminal does for Ctrl-Shift-V. */
  paste(text: string): void
  /** The screen and scrollback as plain text (wrapped lines joined). */
  screen(): string
  /** The screen with escape sequences (colours). */
  screenWithEscapes(): string
  /** Waits until the screen contains `text` (or matches it); returns the screen. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>
  kill(): void
}

/** Starts a shell in a fresh tmux server; `command` is typed into it once it is ready. */
export async function startTerminal(options: {
  cwd: string
  env: NodeJS.ProcessEnv
  command: string
  columns?: number
  rows?: number
}): Promise<TmuxTerminal> {
  const version = spawnSync(TMUX, ['-V'])
  if (version.status !== 0) throw new Error('tmux is required for the chat tests (apt-get install -y tmux)')
  const socket = `dsh-test-${randomUUID()}`
  const run = (...args: string[]) => execFileSync(TMUX, ['-L', socket, ...args], { encoding: 'utf8' })
  execFileSync(
    TMUX,
    [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'chat',
      '-x',
      String(options.columns ?? 120),
      '-y',
      String(options.rows ?? 40),
      '-c',
      options.cwd,
      // A plain shell with no rc files: the command starts at once and the same way everywhere.
      'bash --norc --noprofile',
    ],
    { env: { ...options.env, TMUX: undefined, PS1: '$ ' } as NodeJS.ProcessEnv },
  )
  run('set-option', '-g', 'history-limit', '5000')
  const terminal: TmuxTerminal = {
    keys: (...keys) => void run('send-keys', '-t', 'chat', ...keys),
    type: (text) => void run('send-keys', '-t', 'chat', '-l', text),
    paste(text) {
      run('set-buffer', '-b', 'test', text)
      run('paste-buffer', '-p', '-d', '-b', 'test', '-t', 'chat')
    },
    screen: () => run('capture-pane', '-p', '-J', '-t', 'chat', '-S', '-5000'),
    screenWithEscapes: () => run('capture-pane', '-p', '-e', '-J', '-t', 'chat', '-S', '-5000'),
    async waitFor(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const shown = terminal.screen()
        if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; screen:\n${shown}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    kill: () => void spawnSync(TMUX, ['-L', socket, 'kill-server']),
  }
  terminal.type(options.command)
  terminal.keys('Enter')
  return terminal
}
