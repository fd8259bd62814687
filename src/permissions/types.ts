// Types of the permission-rule seam: rules as written (`Bash(git push *)`), the tool call
// they are matched against, and the decision a rule set reaches.

/** One parsed rule, e.g. `Bash(npm test *)` → `{ tool: 'Bash', specifier: 'npm test *' }`. */
export interface PermissionRule {
  /** The rule exactly as written, for messages and `/permissions`. */
  readonly text: string
  /** Tool name as hooks and rules see it (Claude Code names: `Bash`, `Edit`, `mcp__server__tool`). */
  readonly tool: string
  /** What is inside the parentheses; absent for a bare tool name or `Tool(*)`. */
  readonly specifier?: string
  /**
   * Folder that `/path` patterns are relative to (the project root for a project settings
   * file, the config file's folder for dsh's config). Defaults to the call's cwd.
   */
  readonly baseDir?: string
}

/** A tool call as rules see it: Claude Code's tool name and Claude Code's input field names. */
export interface PermissionSubject {
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
  /** The session's working folder; relative paths in the input and in rules resolve against it. */
  readonly cwd: string
}

export type RuleBehavior = 'deny' | 'ask' | 'allow'

/** Rules by behavior, as in Claude Code's `permissions.allow/ask/deny`. */
export interface PermissionRuleSet {
  readonly deny: readonly PermissionRule[]
  readonly ask: readonly PermissionRule[]
  readonly allow: readonly PermissionRule[]
}

/** The outcome of evaluating a rule set: the first behavior (deny > ask > allow) with a matching rule. */
export interface RuleDecision {
  readonly behavior: RuleBehavior
  readonly rule: PermissionRule
}
