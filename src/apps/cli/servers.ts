// `dsh stdio` and `dsh acp`: compose a harness and hand stdin/stdout to a protocol
// server. Only protocol messages reach stdout; diagnostics go to stderr.

import { loadConfig } from '../../config/load.js'
import { errorMessage } from '../../core/errors.js'
import { createHarness, type Harness, type HarnessOptions } from '../../harness/compose.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { logToStderr } from '../shared/logging.js'
import { type PermissionOptions, permissionFlags, sandboxFlags, trustFlags } from '../shared/options.js'
import { checkApiKey, warnIfBypassing } from '../shared/start.js'
import { handleTermination } from '../shared/termination.js'

export interface StdioOptions extends PermissionOptions {
  config?: string
  sessionId?: string
  /** `--no-project-config`. */
  projectConfig?: boolean
  /** `--trust-project`. */
  trustProject?: boolean
  /** `--max-turns`: model steps a turn may take (overrides agent.maxStepsPerTurn). */
  maxTurns?: number
}

export async function stdioCommand(options: StdioOptions): Promise<number> {
  if (options.sessionId !== undefined) {
    const { sessionIdProblem } = await import('../../session/id.js')
    const problem = sessionIdProblem(options.sessionId)
    if (problem !== undefined) throw usageError(`--session-id: invalid session id: ${problem}`)
  }
  const { runStdioServer, stdioCanAsk } = await import('../stdio/index.js')
  // Headless: nobody to ask, so only trusted, unchanged project files (or --trust-project) load.
  const trust = trustFlags(options, 'headless')
  // An `ask` reaches a client that said in `initialize` it answers permission requests; else it is denied.
  return serve(options, stdioCanAsk, trust, (harness) =>
    runStdioServer({
      harness,
      input: process.stdin,
      output: process.stdout,
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    }),
  )
}

export async function acpCommand(
  options: { config?: string; projectConfig?: boolean; trustProject?: boolean } & PermissionOptions,
): Promise<number> {
  const { runAcpServer } = await import('../acp/index.js')
  // The editor is asked about an untrusted project with session/request_permission when a
  // session opens there (src/apps/acp/trust.ts).
  const trust = trustFlags(options, 'interactive')
  // A stdin that fails (not one that ends) ends the server too; the editor must not take that
  // for a clean shutdown.
  let inputFailure: Error | undefined
  process.stdin.once('error', (error) => {
    inputFailure = error
  })
  const code = await serve(options, true, trust, (harness) =>
    runAcpServer({ harness, input: process.stdin, output: process.stdout }),
  )
  if (inputFailure === undefined) return code
  process.stderr.write(`dsh: acp: reading stdin failed: ${errorMessage(inputFailure)}\n`)
  return ExitCode.Failure
}

/**
 * Checks the key before composing, serves until the server returns, and disposes the
 * harness (flushing every session). SIGINT/SIGTERM/SIGHUP dispose too, then exit
 * 130/143/129. A closed stdin ends the server like `shutdown`: running turns are cancelled.
 */
async function serve(
  options: { config?: string; maxTurns?: number } & PermissionOptions,
  canAsk: boolean | ((agent: AgentHandle) => boolean),
  trust: HarnessOptions['trust'],
  run: (harness: Harness) => Promise<void>,
): Promise<number> {
  const permissions = permissionFlags(options)
  const sandbox = sandboxFlags(options)
  const config = { ...loadConfig(options.config !== undefined ? { file: options.config } : {}), ...sandbox }
  if (options.maxTurns !== undefined) config.agent = { ...config.agent, maxStepsPerTurn: options.maxTurns }
  checkApiKey(config)
  warnIfBypassing(permissions.mode ?? config.permissions.mode)
  const harness = await createHarness({
    config,
    permissions: { ...permissions, canAsk, frontEnd: canAsk === true ? 'interactive' : 'headless' },
    ...(trust ? { trust } : {}),
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
