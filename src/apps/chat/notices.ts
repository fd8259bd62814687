// One-line notices shared by the terminal and the piped chat.

import { toTerminalId, toTerminalText } from '../../core/terminal-text.js'
import { packageVersion } from '../../core/version.js'
import type { Colors } from '../shared/colors.js'
import type { StartedAgent } from '../shared/start.js'
import { recapLines } from './recap.js'

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

/**
 * The chat's first two lines: version, model and folder; the session and the keys. A
 * resumed or forked session adds its recap (the last turns, the restored settings).
 */
export function welcomeLines(started: StartedAgent, model: string, colors: Colors): string[] {
  const cwd = toTerminalText(started.agent.cwd, { keepTabs: false })
  const lines = [
    colors.bold(`dsh ${packageVersion()}`) + colors.dim(` · ${model} · ${cwd}`),
    colors.dim(`${describeStart(started)} · /help for commands · Ctrl-C interrupts · Ctrl-D exits`),
  ]
  if (started.how === 'new') return lines
  return [
    ...lines,
    ...recapLines(started.agent.session.events, colors, {
      cwd: started.agent.cwd,
      ...(started.restored ? { restored: started.restored } : {}),
    }),
  ]
}

/** The chat's clean last line: the session and how to come back to it (as Codex and Claude Code print). */
export function goodbyeLine(sessionId: string, colors: Colors): string {
  const id = toTerminalId(sessionId)
  return colors.dim(`session ${id} · resume with \`dsh -r ${id}\``)
}
