// One-line notices shared by the terminal and the piped chat.

import { toTerminalId } from '../../core/terminal-text.js'
import type { StartedAgent } from '../cli/start.js'

/** `session <id> (new | resumed | forked from <parent>)` */
export function describeStart(started: StartedAgent): string {
  const how =
    started.how === 'forked'
      ? `forked from ${toTerminalId(started.parent ?? '')}`
      : started.how === 'resumed'
        ? 'resumed'
        : 'new'
  return `session ${toTerminalId(started.agent.id)} (${how})`
}
