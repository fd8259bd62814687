// Evaluates a rule set the way Claude Code documents: deny, then ask, then allow; the first
// behavior with a matching rule decides, and rule specificity never changes that order.

import { matchesRule } from './rule-matcher.js'
import type { PermissionRuleSet, PermissionSubject, RuleDecision } from './types.js'

export const EMPTY_RULE_SET: PermissionRuleSet = Object.freeze({ deny: [], ask: [], allow: [] })

/** The decision of the first matching rule (deny > ask > allow), or undefined when none matches. */
export function evaluateRules(
  rules: PermissionRuleSet,
  subject: PermissionSubject,
): RuleDecision | undefined {
  for (const rule of rules.deny) if (matchesRule(rule, subject, 'any')) return { behavior: 'deny', rule }
  for (const rule of rules.ask) if (matchesRule(rule, subject, 'any')) return { behavior: 'ask', rule }
  for (const rule of rules.allow) if (matchesRule(rule, subject, 'every')) return { behavior: 'allow', rule }
  return undefined
}

/** Merges rule sets (config, user settings, project settings); order is kept within each behavior. */
export function mergeRuleSets(...sets: readonly PermissionRuleSet[]): PermissionRuleSet {
  return {
    deny: sets.flatMap((set) => set.deny),
    ask: sets.flatMap((set) => set.ask),
    allow: sets.flatMap((set) => set.allow),
  }
}
