// The permission-rule seam: one parser and matcher for Claude Code's rule syntax
// (`Bash(git push *)`, `Edit(src/**)`, `WebFetch(domain:…)`, `mcp__server__*`), used by
// hook `if` filters and by permission rules and modes.

export { hasHiddenCommands, type SimpleCommand, splitCommand } from './bash-command.js'
export { describePermissions } from './describe.js'
export { PermissionErrorCode } from './errors.js'
export { createExitPlanModeTool, exitPlanModeToolPlugin } from './exit-plan-tool.js'
export {
  hookPermissionMode,
  isPermissionMode,
  PERMISSION_MODE_DESCRIPTIONS,
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
} from './modes.js'
export { PermittedToolRegistry } from './offered-tools.js'
export { expandPathPattern } from './path-pattern.js'
export {
  type AgentPermissions,
  PermissionPolicy,
  type PermissionPolicyConfig,
  PLAN_MODE_CONTEXT,
} from './plugin.js'
export { decideToolPermission, type PolicyDecision, type PolicyInput } from './policy.js'
export { LOCAL_SETTINGS_FILE, rememberAllowRule, suggestedAllowRule } from './remember.js'
export { type MatchMode, matchesRule, ruleNamesTool } from './rule-matcher.js'
export { parsePermissionRule, parsePermissionRules } from './rule-parser.js'
export { EMPTY_RULE_SET, evaluateRules, mergeRuleSets } from './rule-set.js'
export { createSearchFilter, type SearchFilter, type SearchFilterInput } from './search-filter.js'
export { loadProjectPermissions, PROJECT_SETTINGS_FILES, type ProjectPermissions } from './settings.js'
export { type ToolKind, toolKind } from './tool-kinds.js'
export type {
  PermissionRule,
  PermissionRuleSet,
  PermissionSubject,
  RuleBehavior,
  RuleDecision,
} from './types.js'

declare module 'cordis' {
  interface Context {
    permissions: import('./plugin.js').PermissionPolicy
  }
  interface Events {
    /** An agent's permission mode changed (`/permissions`, ACP `session/set_mode`). */
    'permissions/mode-changed'(
      agent: import('../plugin-api/index.js').AgentHandle,
      mode: import('./modes.js').PermissionMode,
    ): void
  }
}
