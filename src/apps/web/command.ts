// `dsh web`: composes one harness (the CLI's composition root), serves the web UI on it
// until a signal, and prints the URL with its access token.

import { spawn } from 'node:child_process'
import { isIP } from 'node:net'
import { loadConfig } from '../../config/load.js'
import { isDshError } from '../../core/errors.js'
import { createHarness } from '../../harness/compose.js'
import { withoutPtyMasters } from '../../shell/index.js'
import { CliError, ExitCode } from '../shared/errors.js'
import { logToStderr } from '../shared/logging.js'
import { type PermissionOptions, permissionFlags, sandboxFlags } from '../shared/options.js'
import { checkApiKey, warnIfBypassing } from '../shared/start.js'
import { handleTermination } from '../shared/termination.js'
import { WebErrorCode } from './errors.js'
import { startWebServer } from './server.js'

export interface WebOptions extends PermissionOptions {
  sandbox?: string
  sandboxNetwork?: boolean
  port?: string
  host?: string
  open?: boolean
  config?: string
  /** `--no-project-config`. */
  projectConfig?: boolean
}

export const DEFAULT_WEB_PORT = 4780

export async function webCommand(options: WebOptions): Promise<number> {
  const port = parsePort(options.port)
  const host = parseHost(options.host)
  const permissions = permissionFlags(options)
  const sandbox = sandboxFlags(options)
  const config = { ...loadConfig(options.config !== undefined ? { file: options.config } : {}), ...sandbox }
  warnIfBypassing(permissions.mode ?? config.permissions.mode)
  try {
    checkApiKey(config)
  } catch (error) {
    // Browsing sessions needs no key; only turns do, and they fail with this message.
    if (!isDshError(error)) throw error
    process.stderr.write(`dsh: warning: ${error.message}; sessions can be read, turns will fail\n`)
  }
  const harness = await createHarness({
    config,
    permissions: { ...permissions, canAsk: true, frontEnd: 'interactive' },
    trust: { frontEnd: 'interactive', disabled: options.projectConfig === false },
  })
  logToStderr(harness.ctx)
  let server: Awaited<ReturnType<typeof startWebServer>>
  try {
    server = await startWebServer({ harness, port, host })
  } catch (error) {
    await harness.dispose()
    throw error
  }
  if (!isLoopback(host)) {
    process.stderr.write(
      `dsh: warning: listening on ${host}, not only this machine: anyone who can reach it and has the URL's token can run commands as you\n`,
    )
  }
  process.stdout.write(
    `dsh web: open ${server.url}\n(Ctrl-C stops the server; running turns are cancelled)\n`,
  )
  if (options.open) openBrowser(server.url)
  const code = await new Promise<number>((resolve) => {
    const termination = handleTermination((_signal, exitCode) => {
      termination.dispose()
      resolve(exitCode === 130 ? ExitCode.Ok : exitCode)
    })
  })
  await server.close()
  await harness.dispose()
  return code
}

/** `--port`: 0 to 65535 (0 picks a free one); default DEFAULT_WEB_PORT. */
export function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WEB_PORT
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535)
    throw new CliError(
      `--port must be a number from 0 to 65535 (got ${JSON.stringify(value)})`,
      WebErrorCode.BadPort,
      ExitCode.Usage,
    )
  return port
}

/** `--host`: an IP address or `localhost`; default 127.0.0.1. */
export function parseHost(value: string | undefined): string {
  if (value === undefined) return '127.0.0.1'
  if (value === 'localhost') return '127.0.0.1'
  if (isIP(value) === 0)
    throw new CliError(
      `--host must be an IP address such as 127.0.0.1 or 0.0.0.0 (got ${JSON.stringify(value)})`,
      WebErrorCode.BadHost,
      ExitCode.Usage,
    )
  return value
}

export function isLoopback(host: string): boolean {
  return host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

function openBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    const child = spawn(command, [url], {
      stdio: withoutPtyMasters(['ignore', 'ignore', 'ignore']),
      detached: true,
    })
    child.on('error', () => process.stderr.write(`dsh: could not start ${command}; open the URL yourself\n`))
    child.unref()
  } catch {
    process.stderr.write(`dsh: could not start ${command}; open the URL yourself\n`)
  }
}
