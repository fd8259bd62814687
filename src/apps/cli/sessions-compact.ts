// `dsh sessions compact <id> [--instructions TEXT]`: compacts a stored session now. The
// session is resumed as an agent (its writer lock taken, PreCompact hooks run), compacted
// with a model-written summary, and disposed; the log gains one `context/compacted` event.

import { formatCompactionLine } from '../../context/index.js'
import { DshError, isDshError } from '../../core/errors.js'
import { resolveSessionId } from '../../history/index.js'
import { ExitCode } from '../shared/errors.js'
import { openHarness, planAgent } from '../shared/start.js'
import { handleTermination } from '../shared/termination.js'

export interface CompactOptions {
  config?: string
  instructions?: string
  projectConfig?: boolean
}

/** Prints `context compacted: 812k → 41k tokens`; every failure is one line, exit 1. */
export async function compactCommand(input: string, options: CompactOptions): Promise<number> {
  const plan = await planAgent(options.config !== undefined ? { config: options.config } : {})
  const interrupt = new AbortController()
  const termination = handleTermination(() => interrupt.abort())
  try {
    // Headless like `dsh run`: the project's own files (PreCompact hooks) are trusted.
    const harness = await openHarness(plan, {
      canAsk: false,
      trust: { frontEnd: 'headless', disabled: options.projectConfig === false },
    })
    try {
      const id = await resolveSessionId(harness.sessions, input)
      const agent = await harness.agents.resume({ resumeSessionId: id })
      const result = await agent
        .compact({
          ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
          signal: interrupt.signal,
        })
        .catch((error: unknown) => {
          if (interrupt.signal.aborted) return undefined
          // Every compaction failure leaves the log as it was: say so on one line.
          if (isDshError(error) && !error.userFacing && error.code.startsWith('CONTEXT_'))
            throw new DshError(`${error.message} (the session is unchanged)`, error.code, {
              userFacing: true,
            })
          throw error
        })
      if (result === undefined) {
        process.stderr.write('dsh: compaction cancelled (the session is unchanged)\n')
        return termination.exitCode ?? ExitCode.Interrupted
      }
      process.stdout.write(`${formatCompactionLine(result)}\n`)
      return ExitCode.Ok
    } finally {
      await harness.dispose()
    }
  } finally {
    termination.dispose()
  }
}
