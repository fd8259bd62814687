// `dsh lsp status`: the language servers this folder would use (installed or how to install),
// and with --check, each one started for real: its root, state, pid and last error.

import { join } from 'node:path'
import { loadConfig } from '../../config/load.js'
import { formatStatusLines, installedPresets, resolveServerSpecs } from '../../lsp/index.js'
import { LspManager } from '../../lsp/manager.js'
import { createSecretFilter } from '../../shell/index.js'
import { ExitCode } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'

export interface LspStatusOptions {
  config?: string
  cwd?: string
  check?: boolean
  json?: boolean
}

export async function lspStatusCommand(options: LspStatusOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const cwd = resolveCwd(options.cwd, '--cwd')
  if (config.lsp === false) {
    process.stdout.write('code intelligence is off (config lsp: false)\n')
    return ExitCode.Ok
  }
  const specs = resolveServerSpecs(config.lsp.servers)
  if (!options.check) {
    if (options.json)
      process.stdout.write(
        `${JSON.stringify(
          installedPresets(specs, cwd).map((line) => ({ line })),
          null,
          2,
        )}\n`,
      )
    else for (const line of installedPresets(specs, cwd)) process.stdout.write(`${line}\n`)
    return ExitCode.Ok
  }
  const manager = new LspManager({
    settings: config.lsp,
    specs,
    home: config.home,
    secrets: createSecretFilter(config.secrets),
  })
  try {
    // One probe path per server: starting needs only the language and the root.
    const notes: string[] = []
    for (const spec of specs) {
      const found = await manager.lookup(join(cwd, `probe.${spec.extensions[0]}`), cwd)
      if (found.kind === 'none') notes.push(found.note)
    }
    const statuses = manager.status()
    if (options.json) process.stdout.write(`${JSON.stringify({ servers: statuses, notes }, null, 2)}\n`)
    else for (const line of [...formatStatusLines(statuses), ...notes]) process.stdout.write(`${line}\n`)
    return statuses.every((s) => s.state === 'running') ? ExitCode.Ok : ExitCode.Failure
  } finally {
    await manager.stop()
  }
}
