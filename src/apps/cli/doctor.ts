// `dsh doctor`: runs the checks (src/apps/shared/doctor-checks.ts) and prints one line
// each; only problems fail it (exit 1).

import { loadConfig } from '../../config/load.js'
import { toTerminalText } from '../../core/terminal-text.js'
import { formatCheck, runDoctorChecks } from '../shared/doctor-checks.js'
import { ExitCode } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'
import { colorsFor } from '../shared/render.js'

export interface DoctorCommandOptions {
  config?: string
  cwd?: string
  model?: string
}

export async function doctorCommand(options: DoctorCommandOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const cwd = resolveCwd(options.cwd, '--cwd')
  const checks = await runDoctorChecks(
    config,
    cwd,
    options.model !== undefined ? { model: options.model } : {},
  )
  const colors = colorsFor(process.stdout)
  for (const check of checks) process.stdout.write(`${formatCheck(check, colors, toTerminalText)}\n`)
  return checks.some((check) => check.status === 'problem') ? ExitCode.Failure : ExitCode.Ok
}
