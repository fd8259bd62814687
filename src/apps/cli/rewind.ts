// `dsh sessions rewind <id> --to-turn N`: restores the files the session's file tools changed
// in turn N and later, refusing (with the list) when one was changed since by something else.

import { nextTurnNumber } from '../../agent/turn-runner.js'
import { loadConfig } from '../../config/load.js'
import { toTerminalText } from '../../core/terminal-text.js'
import { createHarness } from '../../harness/compose.js'
import { resolveSessionId } from '../../history/index.js'
import { describeRewind, FileHistoryStore, rewindSession } from '../../tools/fs/index.js'
import { ExitCode, usageError } from '../shared/errors.js'

export async function rewindCommand(
  input: string,
  options: { toTurn: string; config?: string },
): Promise<number> {
  const turn = Number(options.toTurn)
  if (!Number.isInteger(turn) || turn < 1)
    throw usageError(`--to-turn ${JSON.stringify(options.toTurn)}: expected a turn number (1 or more)`)
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const harness = await createHarness({ config })
  try {
    const id = await resolveSessionId(harness.sessions, input)
    const session = await harness.sessions.open(id)
    try {
      const last = nextTurnNumber(session.events) - 1
      if (turn > last) throw usageError(`--to-turn ${turn}: session ${id} has ${last} turn(s)`)
      const outcome = await rewindSession(session, turn, new FileHistoryStore(config.home))
      const out = outcome.ok ? process.stdout : process.stderr
      for (const line of describeRewind(turn, outcome)) out.write(`${toTerminalText(line)}\n`)
      return outcome.ok ? ExitCode.Ok : ExitCode.Failure
    } finally {
      await harness.sessions.close(session)
    }
  } finally {
    await harness.dispose()
  }
}
