// `dsh env`: the managed DSH_* variables every bash command receives, as declared by
// the built-ins and the loaded contributors (`ctx.shellEnv.list()`).

import { loadConfig } from '../../config/load.js'
import { DshError } from '../../core/errors.js'
import { createHarness } from '../../harness/compose.js'
import { ExitCode } from '../shared/errors.js'
import { logToStderr } from '../shared/logging.js'
import { colorsFor } from '../shared/render.js'
import { formatTable } from './transcript.js'

export interface EnvOptions {
  config?: string
  json?: boolean
}

export async function envCommand(options: EnvOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const harness = await createHarness({ config })
  logToStderr(harness.ctx)
  try {
    const registry = harness.ctx.get('shellEnv')
    if (!registry) throw new DshError('the managed DSH_* environment is not loaded', 'CLI_NO_SHELL_ENV')
    const declarations = registry.list()
    if (options.json) {
      process.stdout.write(`${JSON.stringify(declarations, null, 2)}\n`)
      return ExitCode.Ok
    }
    const colors = colorsFor(process.stdout)
    const rows = declarations.map((declaration) => [
      declaration.key,
      declaration.contributor,
      declaration.description,
    ])
    process.stdout.write(`${formatTable(rows, colors, ['VARIABLE', 'FROM', 'DESCRIPTION'])}\n`)
    process.stdout.write(
      colors.dim(`\nEach bash call gets its own snapshot; a variable is absent when it does not apply.\n`),
    )
    return ExitCode.Ok
  } finally {
    await harness.dispose()
  }
}
