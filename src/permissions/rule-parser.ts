// Parses permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.
// One parser for hook `if` filters and for permission rules (allow/ask/deny).

import { DshError } from '../core/errors.js'
import { PermissionErrorCode } from './errors.js'
import { ruleToolName, unknownToolProblem } from './known-tools.js'
import type { PermissionRule } from './types.js'
import { domainPattern } from './web-domain.js'

const RULE = /^([A-Za-z_][A-Za-z0-9_.*-]*)(?:\((.*)\))?$/s

/**
 * Parses one rule. `Tool(*)` and `Tool()` mean the bare tool. Throws a user-facing
 * DshError (`PERMISSION_RULE_INVALID`) naming the rule when it is not of that form, names no
 * known tool (known-tools.ts), or is a WebFetch rule naming no host.
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
  // Fail closed: a rule naming no tool (a typo, `bsh`) would match nothing.
  const unknown = unknownToolProblem(tool)
  if (unknown !== undefined) {
    throw new DshError(
      `invalid permission rule ${JSON.stringify(text)}: ${unknown}`,
      PermissionErrorCode.InvalidRule,
      {
        userFacing: true,
      },
    )
  }
  const inner = match[2]?.trim()
  const specifier = inner === undefined || inner === '' || inner === '*' ? undefined : inner
  if (ruleToolName(tool) === 'WebFetch' && specifier !== undefined) checkDomain(trimmed, specifier)
  return {
    text: trimmed,
    tool,
    ...(specifier === undefined ? {} : { specifier }),
    ...(baseDir === undefined ? {} : { baseDir }),
  }
}

/** A WebFetch rule names a host (`domain:example.com`, `domain:*.example.com`); any other would match nothing. */
function checkDomain(rule: string, specifier: string): void {
  if (specifier.startsWith('domain:') && domainPattern(specifier.slice('domain:'.length)) !== undefined)
    return
  throw new DshError(
    `invalid permission rule ${JSON.stringify(rule)}: a WebFetch rule names a host, as domain:example.com or domain:*.example.com (no scheme, port or path)`,
    PermissionErrorCode.InvalidRule,
    { userFacing: true },
  )
}

/** Parses a list of rules; the first bad one throws with its text. */
export function parsePermissionRules(texts: readonly string[], baseDir?: string): PermissionRule[] {
  return texts.map((text) => parsePermissionRule(text, baseDir))
}
