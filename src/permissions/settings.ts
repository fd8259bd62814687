// Permission rules from Claude Code settings files: `<project>/.claude/settings.json` and
// `settings.local.json`, `permissions.allow/ask/deny`. Project allow rules count only in a
// trusted folder; ask and deny rules only restrict, so they always count.

import { join } from 'node:path'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../core/capped-file.js'
import { DshError } from '../core/errors.js'
import { readSettingsKey, type SettingsFile } from './claude-settings-file.js'
import { PermissionErrorCode } from './errors.js'
import { parsePermissionRules } from './rule-parser.js'
import type { PermissionRuleSet } from './types.js'

export const PROJECT_SETTINGS_FILES = ['.claude/settings.json', '.claude/settings.local.json'] as const

export interface ProjectPermissions {
  readonly rules: PermissionRuleSet
  /** The files that contributed rules. */
  readonly files: readonly string[]
  /** Allow rules left out because the folder is not trusted. */
  readonly ignoredAllow: number
}

/**
 * Reads the project's settings files. A file past MAX_PROJECT_FILE_BYTES, one that is not
 * JSON, or a rule that does not parse, throws a user-facing error naming the file: a broken deny rule must never be
 * skipped silently.
 */
export function loadProjectPermissions(root: string, trusted: boolean): ProjectPermissions {
  const deny = []
  const ask = []
  const allow = []
  const files: string[] = []
  let ignoredAllow = 0
  for (const name of PROJECT_SETTINGS_FILES) {
    const path = join(root, name)
    let text: string
    try {
      text = readCappedText(path, {
        maxBytes: MAX_PROJECT_FILE_BYTES,
        what: 'settings file',
        code: PermissionErrorCode.InvalidSettings,
      })
    } catch (error) {
      // Too large: refused like a broken file (its deny rules cannot be read).
      if (error instanceof DshError) throw error
      // No such settings file: nothing to add.
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new DshError(
        `${path}: not a valid settings file (not JSON: ${(error as Error).message})`,
        PermissionErrorCode.InvalidSettings,
        { userFacing: true, cause: error },
      )
    }
    // The whole settings object's schema, read at its `permissions` key: other keys (hooks,
    // env, model) are not this reader's business, and their absence is no error.
    const read = readSettingsKey(value, 'permissions')
    if (!read.ok) {
      throw new DshError(
        `${path}: not a valid settings file (${read.problem})`,
        PermissionErrorCode.InvalidSettings,
        {
          userFacing: true,
        },
      )
    }
    const permissions: SettingsFile['permissions'] = read.value
    if (!permissions) continue
    files.push(path)
    const parse = (rules: string[] | undefined) => {
      try {
        return parsePermissionRules(rules ?? [], root)
      } catch (error) {
        throw new DshError(`${path}: ${(error as Error).message}`, PermissionErrorCode.InvalidRule, {
          userFacing: true,
        })
      }
    }
    deny.push(...parse(permissions.deny))
    ask.push(...parse(permissions.ask))
    const allowed = parse(permissions.allow)
    if (trusted) allow.push(...allowed)
    else ignoredAllow += allowed.length
  }
  return { rules: { deny, ask, allow }, files, ignoredAllow }
}
