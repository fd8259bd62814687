// What kind of tool a Claude Code tool name is, for modes: read-only tools run in every
// mode, edit tools follow the edit rules, everything else (Bash, MCP, web, sub-agents) acts.

export type ToolKind = 'read' | 'edit' | 'act'

const READ_ONLY = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'NotebookRead',
  'TodoWrite',
  'BashOutput',
  'Skill',
  'WebSearch',
  'WebFetch',
])
const EDIT = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit'])

export function toolKind(claudeCodeName: string): ToolKind {
  if (READ_ONLY.has(claudeCodeName)) return 'read'
  if (EDIT.has(claudeCodeName)) return 'edit'
  return 'act'
}
