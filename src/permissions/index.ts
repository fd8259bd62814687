// The permission-rule seam: one parser and matcher for Claude Code's rule syntax
// (`Bash(git push *)`, `Edit(src/**)`, `WebFetch(domain:…)`, `mcp__server__*`), used by
// hook `if` filters and by permission rules and modes.

export { hasHiddenCommands, type SimpleCommand, splitCommand } from './bash-command.js'
export { PermissionErrorCode } from './errors.js'
export { expandPathPattern } from './path-pattern.js'
export { type MatchMode, matchesRule, ruleNamesTool } from './rule-matcher.js'
export { parsePermissionRule, parsePermissionRules } from './rule-parser.js'
export { EMPTY_RULE_SET, evaluateRules, mergeRuleSets } from './rule-set.js'
export type {
  PermissionRule,
  PermissionRuleSet,
  PermissionSubject,
  RuleBehavior,
  RuleDecision,
} from './types.js'
