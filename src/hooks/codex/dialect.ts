// The Codex dialect: hooks.json hooks, always-regex matchers, `transcript_path` a string
// or null, and `model`, `permission_mode` and `turn_id` in every turn-scoped payload.

import type { HookDialect, HookFacts } from '../protocol/dialect.js'

/** `tool_name` of dsh tools as Codex names them; others keep their dsh name. */
export const CODEX_TOOL_NAMES: Readonly<Record<string, string>> = { bash: 'Bash' }

export const codexDialect: HookDialect = {
  name: 'codex',
  events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  subagentEvents: false,
  plainStdoutContext: ['SessionStart', 'UserPromptSubmit'],

  matchTarget(event, facts) {
    switch (event) {
      case 'PreToolUse':
      case 'PostToolUse': {
        const name = facts.tool!.name
        const mapped = codexToolName(name)
        return mapped === name ? [name] : [mapped, name]
      }
      case 'SessionStart':
        return [facts.source ?? 'startup']
      default:
        return undefined
    }
  },

  payload(event, facts, services) {
    const { agent } = facts
    const payload: Record<string, unknown> = {
      session_id: agent.id,
      transcript_path: services.locate(agent.session.header)?.path ?? null,
      cwd: agent.cwd,
      hook_event_name: event,
      model: services.modelOf(agent),
      permission_mode: services.permissionModeOf(agent),
    }
    if (facts.turn !== undefined) payload.turn_id = turnId(facts)
    switch (event) {
      case 'SessionStart':
        payload.source = facts.source ?? 'startup'
        break
      case 'UserPromptSubmit':
        payload.prompt = facts.prompt ?? ''
        break
      case 'PreToolUse':
      case 'PostToolUse': {
        const tool = facts.tool!
        payload.tool_name = codexToolName(tool.name)
        payload.tool_input = toolInput(tool.name, tool.input)
        payload.tool_use_id = tool.callId
        if (event === 'PostToolUse' && tool.output) payload.tool_response = tool.output.content
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

/** Codex sends `{ command }` for its shell tool; other tools get their parsed arguments. */
function toolInput(name: string, input: unknown): Record<string, unknown> {
  const object =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : {}
  if (name === 'bash') return { command: typeof object.command === 'string' ? object.command : '' }
  return object
}
