// Types of the permission-rule seam: rules as written (`Bash(git push *)`), the tool call
// they are matched against, and the decision a rule set reaches.

/** One parsed rule, e.g. `Bash(npm test *)` → `{ tool: 'Bash', specifier: 'npm test *' }`. */
export interface PermissionRule {
  /** The rule exactly as written, for messages and `/permissions`. */
  readonly text: string
  /**
   * The tool part as written: a Claude Code name (`Bash`, `Edit`, `mcp__server__tool`), a dsh
   * name (`bash`, matched as `Bash`) or a `*` pattern; known-tools.ts says which are accepted.
   */
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
  /**
   * The dsh tool the model called, when rules see the call under another name
   * (`terminal_start` is checked as a `Bash` command): a rule naming it matches the call too.
   */
  readonly calledAs?: string
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
