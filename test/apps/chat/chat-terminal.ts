// The built `dsh` chat in a tmux terminal for the chat tests: started in a world's project
// folder, killed after each test. The command echoes `dsh-exit=<code>` when dsh ends.

import { afterEach } from 'vitest'
import { startTerminal, type TmuxTerminal } from '../../support/tmux.js'
import { CLI, type CliWorld } from '../cli/cli.js'

/** The chat banner's last words: the chat is ready for input. */
export const READY = '/help for commands'

export type ChatStarter = (w: CliWorld, args?: string[], wait?: boolean) => Promise<TmuxTerminal>

/**
 * Call at the top of a test file: returns `startChat(world, args, wait)`, which starts `dsh`
 * (no arguments, or `args`) in a fresh terminal and waits for its banner unless told not to.
 */
export function useChatTerminals(): ChatStarter {
  const started: TmuxTerminal[] = []
  afterEach(() => {
    for (const terminal of started.splice(0)) terminal.kill()
  })
  return async (w, args = [], wait = true) => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} ${args.join(' ')}; echo "dsh-exit=$?"`
    const terminal = await startTerminal({ cwd: w.project, env: w.env, command })
    started.push(terminal)
    if (wait) await terminal.waitFor(READY)
    return terminal
  }
}
