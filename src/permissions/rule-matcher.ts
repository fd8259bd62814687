// Matches one parsed rule against one tool call. Bash specifiers are command patterns,
// file tools' are path patterns, WebFetch's `domain:host`, other tools' a glob over their
// main argument. `mode` says how a compound command counts: an allow rule must cover every
// part ('every'); deny, ask and hook `if` filters fire when any part matches ('any').

import picomatch from 'picomatch'
import { hasHiddenCommands, splitCommand, substitutedCommands } from './bash-command.js'
import { ruleToolName } from './known-tools.js'
import { candidatePaths, pathMatches } from './path-pattern.js'
import type { PermissionRule, PermissionSubject } from './types.js'
import { domainMatches } from './web-domain.js'

export type MatchMode = 'any' | 'every'

/** Claude Code applies Edit rules to every tool that edits files, Read rules to every tool that reads. */
const TOOL_FAMILIES: Readonly<Record<string, ReadonlySet<string>>> = {
  Edit: new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']),
  Read: new Set(['Read', 'Grep', 'Glob', 'LS', 'NotebookRead']),
}

const PATH_FIELDS = ['file_path', 'path', 'notebook_path'] as const

/** The field whose value a specifier of these tools is matched against. */
const SPECIFIER_FIELDS: Readonly<Record<string, string>> = {
  Agent: 'subagent_type',
  Task: 'subagent_type',
  Skill: 'skill',
  WebSearch: 'query',
}

/**
 * Whether the rule's tool part names the subject's tool: by its Claude Code name or dsh's
 * (`bash` is `Bash`, as in hook matchers), through the Read and Edit families, an `mcp__server`
 * prefix or a `*` pattern. `calledAs` is the dsh tool the model called when rules see the
 * call under another name (`terminal_start` as `Bash`): a rule naming it names the call too.
 */
export function ruleNamesTool(rule: PermissionRule, tool: string, calledAs?: string): boolean {
  if (rule.tool.includes('*')) {
    return [tool, calledAs].some(
      (name) => name !== undefined && picomatch.isMatch(name, rule.tool, { dot: true }),
    )
  }
  const named = ruleToolName(rule.tool)
  if (named === tool || TOOL_FAMILIES[named]?.has(tool)) return true
  if (calledAs !== undefined && named === ruleToolName(calledAs)) return true
  // `mcp__server` names every tool of that server.
  return named.startsWith('mcp__') && !named.slice(5).includes('__') && tool.startsWith(`${named}__`)
}

/** Whether `rule` matches the call. A rule whose specifier cannot apply to the input never matches. */
export function matchesRule(rule: PermissionRule, subject: PermissionSubject, mode: MatchMode): boolean {
  if (!ruleNamesTool(rule, subject.tool, subject.calledAs)) return false
  const specifier = rule.specifier
  if (specifier === undefined) return true
  if (subject.tool === 'Bash') return commandMatches(specifier, String(subject.input.command ?? ''), mode)
  if (ruleToolName(rule.tool) === 'WebFetch' || subject.tool === 'WebFetch')
    return domainMatches(specifier, subject.input.url)
  const path = PATH_FIELDS.map((field) => subject.input[field]).find((value) => typeof value === 'string')
  if (
    TOOL_FAMILIES.Edit?.has(subject.tool) ||
    TOOL_FAMILIES.Read?.has(subject.tool) ||
    typeof path === 'string'
  ) {
    // Glob and Grep without a path search the cwd.
    const target = typeof path === 'string' && path !== '' ? path : subject.cwd
    return pathMatches(specifier, candidatePaths(target, subject.cwd), subject.cwd, rule.baseDir)
  }
  const field = SPECIFIER_FIELDS[subject.tool]
  const value = field === undefined ? undefined : subject.input[field]
  return typeof value === 'string' && globToRegExp(specifier).test(value)
}

function commandMatches(specifier: string, command: string, mode: MatchMode): boolean {
  const pattern = commandPattern(specifier)
  const parts = splitCommand(command)
  if (mode === 'every') {
    // What runs inside $(…) or `…` is invisible to a prefix rule: never allow it by one.
    if (hasHiddenCommands(command) || parts.length === 0) return false
    return parts.every((part) => pattern.test(part.text))
  }
  const whole = command.trim().replace(/\s+/g, ' ')
  // Deny, ask and `if` also see what runs inside `$(…)` and backquotes.
  const hidden = substitutedCommands(command).flatMap((inner) => splitCommand(inner))
  return (
    pattern.test(whole) ||
    [...parts, ...hidden].some((part) => pattern.test(part.text) || pattern.test(part.withoutAssignments))
  )
}

function commandPattern(specifier: string): RegExp {
  // The legacy `prefix:*` form means `prefix *`.
  const normalized = specifier.endsWith(':*') ? `${specifier.slice(0, -2)} *` : specifier
  // `ls *` also matches a bare `ls`: the space before a trailing `*` is a word boundary.
  if (normalized.endsWith(' *')) {
    const head = globSource(normalized.slice(0, -2))
    return new RegExp(`^${head}(?: .*)?$`, 's')
  }
  return new RegExp(`^${globSource(normalized)}$`, 's')
}

function globSource(glob: string): string {
  return glob
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob)}$`, 's')
}
