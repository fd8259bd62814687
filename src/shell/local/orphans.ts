// The start-up report of commands a killed dsh left running (running-calls.ts): one line
// per call naming its session, pids and command, and whether they were killed. A call left
// running is reported once; a later start with `orphanedCommands: kill` still ends it.

import { toTerminalText } from '../../core/terminal-text.js'
import { sweepOrphanedCalls } from './running-calls.js'

/**
 * Finds the calls of dsh processes of this home that died without cleaning up and still
 * have processes; kills them when `kill`. Answers one line per call (no trailing newline).
 */
export function orphanedCommandLines(home: string, kill: boolean): string[] {
  return sweepOrphanedCalls(home, { kill }).map(({ record, pids }) => {
    const session =
      record.sessionId === undefined ? 'no session' : `session ${JSON.stringify(record.sessionId)}`
    const what = `${session}: pid ${pids.join(', ')}: ${JSON.stringify(record.command)}`
    const verdict = kill
      ? 'killed'
      : 'left running (reported once; orphanedCommands: kill ends them at a later start)'
    return toTerminalText(
      `dsh: orphaned command of a killed dsh (pid ${record.dsh.pid}), ${what}: ${verdict}`,
    )
  })
}
