// What kind of tool a Claude Code tool name is, for modes: read-only tools run in every
// mode, edit tools follow the edit rules, web tools read but reach the network (Claude Code
// asks before them), everything else (Bash, MCP, sub-agents) acts.

export type ToolKind = 'read' | 'web' | 'edit' | 'act'

const READ_ONLY = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'NotebookRead',
  'TodoWrite',
  'BashOutput',
  'Skill',
  // Looking at a terminal changes nothing (dsh's own tools, no Claude Code name).
  'terminal_read',
  'terminal_list',
])
const WEB = new Set(['WebSearch', 'WebFetch'])
const EDIT = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit'])

export function toolKind(claudeCodeName: string): ToolKind {
  if (READ_ONLY.has(claudeCodeName)) return 'read'
  if (WEB.has(claudeCodeName)) return 'web'
  if (EDIT.has(claudeCodeName)) return 'edit'
  return 'act'
}
