// `dsh stdio` and `dsh acp`: compose a harness and hand stdin/stdout to a protocol
// server. Only protocol messages reach stdout; diagnostics go to stderr.

import { loadConfig } from '../../config/load.js'
import { createHarness, type Harness, type HarnessOptions } from '../../harness/compose.js'
import { ExitCode } from './errors.js'
import { logToStderr } from './logging.js'
import { checkApiKey } from './start.js'

export interface StdioOptions {
  config?: string
  sessionId?: string
  /** `--no-project-config`. */
  projectConfig?: boolean
}

export async function stdioCommand(options: StdioOptions): Promise<number> {
  const { runStdioServer } = await import('../stdio/index.js')
  // Headless, like Claude Code's non-interactive mode: the project's own files are trusted.
  const trust = { frontEnd: 'headless' as const, disabled: options.projectConfig === false }
  return serve(options.config, trust, (harness) =>
    runStdioServer({
      harness,
      input: process.stdin,
      output: process.stdout,
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    }),
  )
}

export async function acpCommand(options: { config?: string; projectConfig?: boolean }): Promise<number> {
  const { runAcpServer } = await import('../acp/index.js')
  // An editor cannot be asked before its first session exists: only folders trusted before
  // (in chat) bring their own configuration.
  const trust = { frontEnd: 'interactive' as const, disabled: options.projectConfig === false }
  return serve(options.config, trust, (harness) =>
    runAcpServer({ harness, input: process.stdin, output: process.stdout }),
  )
}

/**
 * Checks the key before composing, serves until the server returns, and disposes the
 * harness (flushing every session). SIGINT/SIGTERM dispose too, then exit 130/143.
 */
async function serve(
  configFile: string | undefined,
  trust: HarnessOptions['trust'],
  run: (harness: Harness) => Promise<void>,
): Promise<number> {
  const config = loadConfig(configFile !== undefined ? { file: configFile } : {})
  checkApiKey(config)
  const harness = await createHarness({ config, ...(trust ? { trust } : {}) })
  logToStderr(harness.ctx)
  let stopping: Promise<void> | undefined
  const stop = (code: number) => () => {
    stopping ??= harness.dispose().finally(() => process.exit(code))
  }
  const onSigint = stop(ExitCode.Interrupted)
  const onSigterm = stop(143)
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onSigterm)
  try {
    await run(harness)
    return ExitCode.Ok
  } finally {
    process.off('SIGINT', onSigint)
    process.off('SIGTERM', onSigterm)
    await (stopping ?? harness.dispose())
  }
}
