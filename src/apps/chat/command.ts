// `dsh` / `dsh chat`: the interactive chat on a terminal, or one turn per line when
// stdin is not a terminal. Keys are read from the first moment, before the harness
// exists, so what is typed or pasted while the chat starts is kept.

import { errorMessage } from '../../core/errors.js'
import { usageError } from '../shared/errors.js'
import { type AgentOptions, trustFlags } from '../shared/options.js'
import { openHarness, planAgent, startAgent } from '../shared/start.js'
import { TerminalChat } from './chat.js'
import { pickAndResume } from './chat-commands.js'
import { loadHighlighter } from './highlight.js'
import { PromptHistory } from './history.js'

export async function chatCommand(given: AgentOptions): Promise<number> {
  // `dsh -r` with no id: a new session opens with the resume picker in front of it.
  const picking = given.resume === true
  const { resume: _resume, ...rest } = given
  const options: AgentOptions = picking ? rest : given
  const terminal = process.stdin.isTTY && process.stdout.isTTY
  if (picking && !terminal)
    throw usageError(
      '-r without an id opens a picker, which needs a terminal: give a session id (dsh -r ID) or -c',
    )
  const plan = await planAgent(options)
  if (!terminal) {
    const { pipedChat } = await import('./piped.js')
    return pipedChat(plan, options)
  }
  const chat = new TerminalChat(
    process.stdin,
    process.stdout,
    new PromptHistory(plan.config.home, plan.cwd),
    plan.cwd,
  )
  chat.listen()
  let harness: Awaited<ReturnType<typeof openHarness>> | undefined
  try {
    // A project's hooks, .mcp.json servers, allow rules and skills load only once the user
    // trusts the folder (asked once, in the chat's own live region).
    harness = await openHarness(plan, {
      canAsk: true,
      trust: {
        ...trustFlags(options, 'interactive'),
        ask: (folder, brings) => chat.askTrust(folder, brings),
      },
      log: (line) => chat.notice(line),
    })
    const started = await startAgent(harness, plan, options)
    // Code highlighting loads in the background: the first answer rarely needs it at once.
    void loadHighlighter()
    const finished = chat.attach({ harness, plan, started })
    if (picking) void pickAndResume(chat, true).catch((error: unknown) => chat.notice(errorMessage(error)))
    // A project's .mcp.json is asked about as the chat opens, not in the middle of the
    // first reply; its servers still start with the first model request.
    void harness.ctx.get('mcp')?.projectTrusted(started.agent)
    return await finished
  } finally {
    chat.close()
    await harness?.dispose()
  }
}
