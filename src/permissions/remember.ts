// "Yes, and don't ask again": the allow rule an approval suggests, and writing it into the
// project's `.claude/settings.local.json` (`permissions.allow`), where Claude Code keeps the
// same answers — a file that stays on this machine, beside the project's settings.json.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DshError } from '../core/errors.js'
import { fingerprintProjectConfig, isTrustedNow, ProjectTrustStore } from '../trust/index.js'
import { splitCommand } from './bash-command.js'
import { PermissionErrorCode } from './errors.js'
import { isReadOnlyCommand } from './read-only-command.js'

export const LOCAL_SETTINGS_FILE = '.claude/settings.local.json'

/**
 * The rule that would stop the question for calls like this one: for bash, the command's
 * prefix (`npm test` → `Bash(npm test *)`: the program and a subcommand word, as Claude
 * Code suggests); for any other tool, the tool (`Write`, `mcp__db__query`). Undefined when
 * no rule can be narrow enough: a bash line of several commands, or none.
 */
export function suggestedAllowRule(tool: string, input: unknown): string | undefined {
  if (tool !== 'Bash') return tool
  const command = (input as { command?: unknown } | undefined)?.command
  if (typeof command !== 'string') return undefined
  const parts = splitCommand(command)
  if (parts.length !== 1) return undefined
  const words = parts[0]!.withoutAssignments.split(' ')
  const [program, second] = words
  if (program === undefined || program === '' || /[*()]/.test(program)) return undefined
  // A subcommand word (`test`, `log`) narrows the rule; an option or a path does not name one.
  const prefix = second !== undefined && /^[a-z][a-z0-9:_-]*$/.test(second) ? `${program} ${second}` : program
  return isReadOnlyCommand(prefix) || words.length > 1 ? `Bash(${prefix} *)` : `Bash(${prefix})`
}

/**
 * Adds `rule` to `permissions.allow` of the project's settings.local.json (created when
 * missing, other keys kept). A folder trusted with its configuration stays trusted: the
 * user's own answer is not a change someone else made. Returns the file written.
 */
export function rememberAllowRule(projectRoot: string, rule: string, home: string | undefined): string {
  const path = join(projectRoot, LOCAL_SETTINGS_FILE)
  const store = home !== undefined ? new ProjectTrustStore(home) : undefined
  const trustedBefore = store !== undefined && isTrustedNow(store, projectRoot)
  let settings: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('not an object')
    settings = parsed as Record<string, unknown>
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new DshError(
        `${path}: not a valid settings file, so the rule was not saved (${(error as Error).message})`,
        PermissionErrorCode.InvalidSettings,
        { userFacing: true },
      )
    }
  }
  const permissions = (settings.permissions ?? {}) as { allow?: unknown }
  const allow = Array.isArray(permissions.allow) ? (permissions.allow as unknown[]) : []
  if (!allow.includes(rule)) allow.push(rule)
  settings.permissions = { ...permissions, allow }
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`)
  renameSync(temporary, path)
  if (trustedBefore) store.recordConfig(projectRoot, fingerprintProjectConfig(projectRoot))
  return path
}
