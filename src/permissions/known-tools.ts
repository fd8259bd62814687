// Which tool names a permission rule may name, and what each stands for: Claude Code's
// names, dsh's own (the table hook matchers use too, claude-code-tool-names.ts: `bash` is
// `Bash`) and `mcp__…`. A rule naming anything else would match nothing, so it is refused
// where it is read (flag, config file, settings file), never skipped in silence.

import picomatch from 'picomatch'
import { editDistance } from '../core/edit-distance.js'
import { CLAUDE_CODE_TOOL_NAMES, claudeCodeToolName } from './claude-code-tool-names.js'

/**
 * Claude Code's tool names, current and former (Claude Code docs, "Tools reference", read
 * 2026-12-06). Rules for those dsh lacks (NotebookEdit, PowerShell) match nothing here, as
 * there is nothing to match; a shared `.claude/settings.json` naming them still loads.
 */
const CLAUDE_CODE_TOOLS = [
  'Agent',
  'Artifact',
  'AskUserQuestion',
  'Bash',
  'BashOutput',
  'CronCreate',
  'CronDelete',
  'CronList',
  'Edit',
  'EnterPlanMode',
  'EnterWorktree',
  'ExitPlanMode',
  'ExitWorktree',
  'Glob',
  'Grep',
  'KillBash',
  'KillShell',
  'LS',
  'LSP',
  'ListMcpResourcesTool',
  'Monitor',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'PowerShell',
  'Read',
  'ReadMcpResourceTool',
  'SendMessage',
  'Skill',
  'SlashCommand',
  'Task',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskOutput',
  'TaskStop',
  'TaskUpdate',
  'TeamCreate',
  'TeamDelete',
  'TodoRead',
  'TodoWrite',
  'ToolSearch',
  'WebFetch',
  'WebSearch',
  'Write',
]

/**
 * dsh tools with no Claude Code name: rules and hooks know them by their dsh names.
 * test/permissions/tool-names.test.ts checks every tool a harness registers is known.
 */
const DSH_ONLY_TOOLS = [
  'terminal_start',
  'terminal_send',
  'terminal_read',
  'terminal_resize',
  'terminal_kill',
  'terminal_list',
  'lsp_diagnostics',
  'lsp_definition',
  'lsp_references',
  'lsp_hover',
  'lsp_symbols',
  'acp_subagent',
]

/**
 * Former Claude Code names of tools dsh has: `Task` is the sub-agent tool, `Agent` now (hooks
 * match it too); `KillBash` was `KillShell`'s name (dsh's job_kill).
 */
const FORMER_NAMES: Readonly<Record<string, string>> = { Task: 'Agent', KillBash: 'KillShell' }

const KNOWN = [...new Set([...CLAUDE_CODE_TOOLS, ...Object.keys(CLAUDE_CODE_TOOL_NAMES), ...DSH_ONLY_TOOLS])]
const KNOWN_SET = new Set(KNOWN)

/** The Claude Code name a rule's tool part stands for: `bash` is `Bash`, `Task` is `Agent`. */
export function ruleToolName(name: string): string {
  const claude = claudeCodeToolName(name)
  return FORMER_NAMES[claude] ?? claude
}

/**
 * Why a rule's tool part names no tool; undefined when it names one, an MCP server or tool
 * (`mcp__…`), or is a `*` pattern matching a known name.
 */
export function unknownToolProblem(name: string): string | undefined {
  if (name.startsWith('mcp__') || KNOWN_SET.has(name)) return undefined
  if (name.includes('*') && KNOWN.some((known) => picomatch.isMatch(known, name, { dot: true })))
    return undefined
  const near = nearestName(name)
  return `no tool is named ${name}${near === undefined ? '' : ` (did you mean ${near}?)`}; rules name tools as Claude Code does (Bash, Read, Edit, WebFetch, mcp__server__tool) or by dsh's names (bash, read, web_fetch)`
}

/** The known name closest to `name`: the same letters in another case, else at most two edits away. */
function nearestName(name: string): string | undefined {
  const lower = name.toLowerCase()
  const sameLetters = KNOWN.find((known) => known.toLowerCase() === lower)
  if (sameLetters !== undefined) return sameLetters
  let best: { name: string; distance: number } | undefined
  for (const known of KNOWN) {
    const distance = editDistance(lower, known.toLowerCase())
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name: known, distance }
  }
  return best?.name
}
