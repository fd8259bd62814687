// Loads the instruction files when an agent is set up (new, resumed, forked, sub-agent) and
// logs them as `instructions/loaded` when they differ from what the session last logged.
// Request assembly sends the last logged text as the first message after the system prompt.

import type { Context } from 'cordis'
import type { AgentHandle } from '../plugin-api/index.js'
import { discoverInstructionFiles, renderInstructions } from './discover.js'
import { lastInstructions } from './log.js'

export interface InstructionsConfig {
  /** The harness home; `<home>/AGENTS.md` applies to every project. */
  home?: string
}

/** Appends `instructions/loaded` when the files on disk say something else than the log. */
export function refreshInstructions(
  agent: AgentHandle,
  home: string | undefined,
  warn: (problem: string) => void = () => {},
): void {
  const problems: string[] = []
  const files = discoverInstructionFiles(agent.cwd, home, problems)
  for (const problem of problems) warn(problem)
  const text = renderInstructions(files)
  const last = lastInstructions(agent.session)
  if ((last?.text ?? '') === text) return
  agent.session.append('instructions/loaded', { files: files.map((file) => file.path), text })
}

export const InstructionsPlugin = {
  name: 'instructions',
  apply(ctx: Context, config: InstructionsConfig = {}): void {
    const logger = ctx.logger('instructions')
    ctx.on('agent/setup', (agent) =>
      refreshInstructions(agent, config.home, (line) => logger.warn('%s', line)),
    )
  },
}
