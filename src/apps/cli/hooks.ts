// `dsh hooks list`: every hook handler a session in this folder would run (config files,
// the opted-in user files, the project's own files), the events dsh cannot fire, and the
// problems found reading them. Loads only the config and the hook files.

import { homedir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../config/load.js'
import { toTerminalText } from '../../core/terminal-text.js'
import { claudeCodeDialect, codexDialect, HOOK_FILE_LOCATIONS, listHooks } from '../../hooks/index.js'
import { isTrustedNow, ProjectTrustStore } from '../../trust/index.js'
import { ExitCode } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'
import { colorsFor } from '../shared/render.js'
import { formatTable } from './transcript.js'

export interface HooksListOptions {
  config?: string
  cwd?: string
  json?: boolean
  projectConfig?: boolean
}

export async function hooksListCommand(options: HooksListOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const cwd = resolveCwd(options.cwd)
  const user = (dialect: 'claude-code' | 'codex', on: boolean) =>
    on ? [join(homedir(), HOOK_FILE_LOCATIONS[dialect].user)] : []
  const listing = listHooks({
    cwd,
    files: {
      'claude-code': [
        ...user('claude-code', config.hooks.claudeCodeUserSettings),
        ...config.hooks.claudeCode,
      ],
      codex: [...user('codex', config.hooks.codexUserHooks), ...config.hooks.codex],
    },
    supported: { 'claude-code': claudeCodeDialect.events, codex: codexDialect.events },
    projectFiles: config.hooks.projectFiles && options.projectConfig !== false,
  })
  // Trusted with its present configuration, as a session would decide it (a changed file is not).
  const trusted = isTrustedNow(new ProjectTrustStore(config.home), listing.projectRoot)
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...listing, projectTrusted: trusted }, null, 2)}\n`)
    return ExitCode.Ok
  }
  const colors = colorsFor(process.stdout)
  const out: string[] = []
  if (listing.rows.length === 0) out.push('no hook handlers')
  else {
    const rows = listing.rows.map((row) => [
      row.dialect,
      row.fired ? row.event : `${row.event} (not fired)`,
      row.matcher ?? '*',
      row.if ?? '-',
      toTerminalText([row.command, ...(row.args ?? [])].join(' ')) +
        (row.async ? ' (async)' : '') +
        (row.once ? ' (once)' : ''),
      row.origin === 'project'
        ? `${row.file} (project, ${trusted ? 'trusted' : 'not trusted: chat asks first; run and stdio load it only with --trust-project'})`
        : row.file,
    ])
    out.push(formatTable(rows, colors, ['DIALECT', 'EVENT', 'MATCHER', 'IF', 'COMMAND', 'FILE']))
  }
  out.push('', `project root: ${listing.projectRoot}`)
  for (const [dialect, events] of Object.entries(listing.notFired))
    out.push(
      colors.dim(`${dialect} events dsh does not fire: ${events.length > 0 ? events.join(', ') : 'none'}`),
    )
  for (const problem of listing.problems) out.push(`${colors.yellow('problem:')} ${toTerminalText(problem)}`)
  process.stdout.write(`${out.join('\n')}\n`)
  return ExitCode.Ok
}
