// Claude Code names of dsh tools that declare no hook shape of their own (`hookNames` on
// the tool definition wins). A matcher is tested against both the Claude Code name and the
// dsh name, so `Bash` and `bash` both match the bash tool.

export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  job_output: 'BashOutput',
  job_kill: 'KillShell',
  subagent: 'Agent',
  read: 'Read',
  write: 'Write',
  edit: 'Edit',
  multi_edit: 'MultiEdit',
  ls: 'LS',
  todo_write: 'TodoWrite',
  skill: 'Skill',
  glob: 'Glob',
  grep: 'Grep',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  exit_plan_mode: 'ExitPlanMode',
}

/** The `tool_name` a Claude Code hook sees for a dsh tool without a declared shape. */
export function claudeCodeToolName(dshName: string): string {
  return CLAUDE_CODE_TOOL_NAMES[dshName] ?? dshName
}
