// The Codex dialect: hooks.json hooks, always-regex matchers, `transcript_path` a string
// or null, and `model`, `permission_mode` and `turn_id` in every turn-scoped payload.
// Codex's PreToolUse cannot ask: an `ask` is denied (see the bridge), never run.
// PreCompact/PostCompact follow developers.openai.com/codex/hooks (last modified
// 2026-05-22, read 2026-12-04): `trigger` and `turn_id`, no `permission_mode`.

import type { HookDialect, HookFacts } from '../protocol/dialect.js'
import { toHookInput, toolCandidates } from '../protocol/tool-shape.js'

/**
 * `tool_name` of dsh tools that declare no Codex shape; others keep their dsh name. Codex
 * changes files with one tool, `apply_patch`, whose hooks get the patch text as
 * `tool_input.command`; dsh's file-changing tools are shown to Codex hooks that way.
 */
export const CODEX_TOOL_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  write: 'apply_patch',
  edit: 'apply_patch',
  multi_edit: 'apply_patch',
}

export const codexDialect: HookDialect = {
  name: 'codex',
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PermissionRequest',
    'PostToolUse',
    'PreCompact',
    'PostCompact',
    'Stop',
  ],
  subagentEvents: false,
  plainStdoutContext: ['SessionStart', 'UserPromptSubmit'],
  envFileVariable: 'CODEX_ENV_FILE',
  canAsk: false,
  fallbackToolNames: CODEX_TOOL_NAMES,

  matchTarget(event, facts, services) {
    switch (event) {
      case 'PreToolUse':
      case 'PermissionRequest':
      case 'PostToolUse': {
        const name = facts.tool!.name
        return toolCandidates(services.toolShape(name), name)
      }
      case 'SessionStart':
        return [facts.source ?? 'startup']
      case 'PreCompact':
      case 'PostCompact':
        return [facts.compaction?.trigger ?? 'auto']
      default:
        return undefined
    }
  },

  discardsSystemMessage: [],
  /** "If a matching PreCompact hook returns `continue: false`, Codex stops before compacting." Exit 2 and `decision` do not block it. */
  compactionBlock: (outcome) =>
    outcome.stop ? outcome.stop.reason || 'stopped by a PreCompact hook (continue: false)' : undefined,

  /** Codex's own wording for a PreToolUse block. */
  denyMessage(reason, facts, services) {
    const tool = facts.tool
    const name = tool ? services.toolShape(tool.name).name : 'unknown'
    const command = toolInput(facts, services).command
    if (name === 'Bash' && typeof command === 'string')
      return `Command blocked by PreToolUse hook: ${reason}. Command: ${command}`
    return `Tool call blocked by PreToolUse hook: ${reason}. Tool: ${name}`
  },

  payload(event, facts, services) {
    const { agent } = facts
    const payload: Record<string, unknown> = {
      session_id: agent.id,
      transcript_path: services.locate(agent.session.header)?.path ?? null,
      cwd: agent.cwd,
      hook_event_name: event,
      model: services.modelOf(agent),
    }
    // Codex documents `permission_mode` for every event but the compaction ones.
    if (!facts.compaction) payload.permission_mode = services.permissionMode(agent)
    if (facts.turn !== undefined) payload.turn_id = turnId(facts)
    switch (event) {
      case 'SessionStart':
        payload.source = facts.source ?? 'startup'
        break
      case 'UserPromptSubmit':
        payload.prompt = facts.prompt ?? ''
        break
      case 'PreToolUse':
      case 'PermissionRequest':
      case 'PostToolUse': {
        const tool = facts.tool!
        payload.tool_name = services.toolShape(tool.name).name
        payload.tool_input = toolInput(facts, services)
        payload.tool_use_id = tool.callId
        if (event === 'PostToolUse' && tool.output) payload.tool_response = tool.output.content
        break
      }
      case 'PreCompact':
      case 'PostCompact': {
        const compaction = facts.compaction!
        // Codex runs a manual /compact as a turn of its own: dsh names it after the compaction.
        payload.turn_id =
          facts.turn !== undefined ? turnId(facts) : `${agent.id}:compact-${compaction.number}`
        payload.trigger = compaction.trigger
        break
      }
      case 'Stop':
        payload.stop_hook_active = facts.stopHookActive === true
        payload.last_assistant_message = facts.lastAssistantMessage ?? ''
        break
      default:
        break
    }
    return payload
  },

  env() {
    return undefined
  },
}

export function codexToolName(dshName: string): string {
  return CODEX_TOOL_NAMES[dshName] ?? dshName
}

/** A turn id unique within the process: the session id and the turn number. */
function turnId(facts: HookFacts): string {
  return `${facts.agent.id}:turn-${facts.turn}`
}

/** Codex sends `{ command }` for its shell tool; other tools get their arguments in their declared field names. */
function toolInput(
  facts: HookFacts,
  services: Parameters<HookDialect['payload']>[2],
): Record<string, unknown> {
  const tool = facts.tool!
  const input = toHookInput(services.toolShape(tool.name), tool.input)
  if (tool.name === 'bash') return { command: typeof input.command === 'string' ? input.command : '' }
  if (services.toolShape(tool.name).name === 'apply_patch') return { command: patchText(tool.name, input) }
  return input
}

/**
 * A dsh file change as Codex's patch text (`*** Begin Patch` … `*** End Patch`): a write is
 * an `Add File` with every line, an edit an `Update File` with one `@@` section per
 * replacement. The path is the one the model gave (Codex resolves it against `cwd`).
 */
function patchText(dshName: string, input: Record<string, unknown>): string {
  const path = typeof input.file_path === 'string' ? input.file_path : ''
  const lines = (text: unknown, mark: string) =>
    typeof text === 'string' && text !== ''
      ? text
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => mark + line)
      : []
  const body: string[] = []
  if (dshName === 'write') {
    body.push(`*** Add File: ${path}`, ...lines(input.content, '+'))
  } else {
    const edits = dshName === 'multi_edit' && Array.isArray(input.edits) ? input.edits : [input]
    body.push(`*** Update File: ${path}`)
    for (const edit of edits as Record<string, unknown>[])
      body.push('@@', ...lines(edit.old_string, '-'), ...lines(edit.new_string, '+'))
  }
  return ['*** Begin Patch', ...body, '*** End Patch'].join('\n')
}
