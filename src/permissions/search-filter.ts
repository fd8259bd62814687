// Read rules over search results. Claude Code applies Read rules, best effort, to every
// tool that reads files: grep and glob leave out each file a deny rule names, and each one
// an ask rule names unless the search itself was asked for under that rule. Pure but for
// realpath; the note names rules, never files (docs/permissions.md, "Searches").

import { isAbsolute, relative, resolve, sep } from 'node:path'
import picomatch from 'picomatch'
import type { PermissionMode } from './modes.js'
import { candidatePaths, compilePathPattern, expandPathPattern } from './path-pattern.js'
import { matchesRule, ruleNamesTool } from './rule-matcher.js'
import type { PermissionRule, PermissionRuleSet, PermissionSubject } from './types.js'

/** What a search must leave out of its answer, for one call. */
export interface SearchFilter {
  /** True when nothing from this absolute path (its lines, its count, its name) may reach the model. */
  withholds(path: string): boolean
  /**
   * One line for the result naming the rules that may leave files out of this search;
   * undefined when none reaches the folder searched. It depends on the rules and the folder
   * only, never on what was found, so it tells nothing about what a withheld file holds.
   */
  readonly note: string | undefined
}

export interface SearchFilterInput {
  readonly rules: PermissionRuleSet
  readonly mode: PermissionMode
  /** The search call as rules see it (`Grep`, `Glob` and its input), as it was decided. */
  readonly subject: PermissionSubject
  /** The absolute file or folder searched. */
  readonly searched: string
}

/** The filter for one search call; undefined when no rule could leave anything out. */
export function createSearchFilter(input: SearchFilterInput): SearchFilter | undefined {
  const { rules, mode, subject } = input
  // Read rules name Grep and Glob too (the Read family); Grep(…) and Glob(…) name their own.
  const names = (rule: PermissionRule) => ruleNamesTool(rule, subject.tool)
  const deny = rules.deny.filter(names)
  // bypassPermissions answers every ask; an ask rule the call itself matched was asked already.
  const ask =
    mode === 'bypassPermissions'
      ? []
      : rules.ask.filter((rule) => names(rule) && !matchesRule(rule, subject, 'any'))
  if (deny.length === 0 && ask.length === 0) return undefined
  const cwd = subject.cwd
  // What matchesRule does for a Grep or Glob call with this `path` (every rule here names
  // one, so it is a file rule), with each pattern compiled once and each path resolved once.
  const tests = [...deny, ...ask].map((rule) =>
    rule.specifier === undefined ? () => true : compilePathPattern(rule.specifier, cwd, rule.baseDir),
  )
  const reached = (rule: PermissionRule) => mayReach(rule, input.searched, cwd)
  return {
    withholds(path) {
      const paths = candidatePaths(path, cwd)
      return tests.some((test) => test(paths))
    },
    note: noteFor(deny.filter(reached), ask.filter(reached)),
  }
}

function noteFor(deny: readonly PermissionRule[], ask: readonly PermissionRule[]): string | undefined {
  const texts = (list: readonly PermissionRule[]) => list.map((rule) => rule.text).join(', ')
  const lines = [
    ...(deny.length > 0
      ? [`[permission rules withhold the files they deny from these results: ${texts(deny)}]`]
      : []),
    ...(ask.length > 0
      ? [
          `[files that need approval to read are left out of these results (${texts(ask)}); read one to be asked]`,
        ]
      : []),
  ]
  return lines.length > 0 ? lines.join('\n') : undefined
}

/**
 * Whether the rule's path patterns can match anything at or below `searched` (as written or
 * after symlinks): the fixed start of a pattern and the folder searched lie on one line.
 */
function mayReach(rule: PermissionRule, searched: string, cwd: string): boolean {
  if (rule.specifier === undefined) return true
  const folders = candidatePaths(searched, cwd)
  return expandPathPattern(rule.specifier, cwd, rule.baseDir).some((glob) => {
    const base = picomatch.scan(glob).base || '/'
    return folders.some((folder) => within(base, folder) || within(folder, base))
  })
}

function within(folder: string, path: string): boolean {
  const rel = relative(folder, resolve(path))
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}
