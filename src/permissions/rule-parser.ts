// Parses permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.
// One parser for hook `if` filters and for permission rules (allow/ask/deny).

import { DshError } from '../core/errors.js'
import { PermissionErrorCode } from './errors.js'
import type { PermissionRule } from './types.js'

const RULE = /^([A-Za-z_][A-Za-z0-9_.*-]*)(?:\((.*)\))?$/s

/**
 * Parses one rule. `Tool(*)` and `Tool()` mean the bare tool. Throws a user-facing
 * DshError (`PERMISSION_RULE_INVALID`) naming the rule when it is not of that form.
 */
export function parsePermissionRule(text: string, baseDir?: string): PermissionRule {
  const trimmed = text.trim()
  const match = RULE.exec(trimmed)
  if (!match) {
    throw new DshError(
      `invalid permission rule ${JSON.stringify(text)}: expected Tool or Tool(specifier), e.g. Bash(npm test *)`,
      PermissionErrorCode.InvalidRule,
      { userFacing: true },
    )
  }
  const tool = match[1] as string
  const inner = match[2]?.trim()
  const specifier = inner === undefined || inner === '' || inner === '*' ? undefined : inner
  return {
    text: trimmed,
    tool,
    ...(specifier === undefined ? {} : { specifier }),
    ...(baseDir === undefined ? {} : { baseDir }),
  }
}

/** Parses a list of rules; the first bad one throws with its text. */
export function parsePermissionRules(texts: readonly string[], baseDir?: string): PermissionRule[] {
  return texts.map((text) => parsePermissionRule(text, baseDir))
}
