// `dsh stdio` and `dsh acp`: compose a harness and hand stdin/stdout to a protocol
// server. Only protocol messages reach stdout; diagnostics go to stderr.

import { loadConfig } from '../../config/load.js'
import { createHarness, type Harness } from '../../harness/compose.js'
import { ExitCode, usageError } from './errors.js'
import { logToStderr } from './logging.js'
import { permissionFlags } from './options.js'
import { checkApiKey } from './start.js'
import { handleTermination } from './termination.js'

export interface StdioOptions extends PermissionOptions {
  config?: string
  sessionId?: string
}

export interface PermissionOptions {
  permissionMode?: string
  allowedTools?: string[]
  disallowedTools?: string[]
}

export async function stdioCommand(options: StdioOptions): Promise<number> {
  if (options.sessionId !== undefined) {
    const { sessionIdProblem } = await import('../../session/id.js')
    const problem = sessionIdProblem(options.sessionId)
    if (problem !== undefined) throw usageError(`--session-id: invalid session id: ${problem}`)
  }
  const { runStdioServer } = await import('../stdio/index.js')
  return serve(options, false, (harness) =>
    runStdioServer({
      harness,
      input: process.stdin,
      output: process.stdout,
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    }),
  )
}

export async function acpCommand(options: { config?: string } & PermissionOptions): Promise<number> {
  const { runAcpServer } = await import('../acp/index.js')
  return serve(options, true, (harness) =>
    runAcpServer({ harness, input: process.stdin, output: process.stdout }),
  )
}

/**
 * Checks the key before composing, serves until the server returns, and disposes the
 * harness (flushing every session). SIGINT/SIGTERM/SIGHUP dispose too, then exit
 * 130/143/129. A closed stdin ends the server like `shutdown`: running turns are cancelled.
 */
async function serve(
  options: { config?: string } & PermissionOptions,
  canAsk: boolean,
  run: (harness: Harness) => Promise<void>,
): Promise<number> {
  const permissions = permissionFlags(options)
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  checkApiKey(config)
  const harness = await createHarness({
    config,
    permissions: { ...permissions, canAsk, frontEnd: canAsk ? 'interactive' : 'headless' },
  })
  logToStderr(harness.ctx)
  let stopping: Promise<void> | undefined
  // Disposing cancels every turn, kills every process group, flushes, releases locks.
  const termination = handleTermination((_signal, code) => {
    stopping ??= harness.dispose().finally(() => process.exit(code))
  })
  try {
    await run(harness)
    return ExitCode.Ok
  } finally {
    termination.dispose()
    await (stopping ?? harness.dispose())
  }
}
