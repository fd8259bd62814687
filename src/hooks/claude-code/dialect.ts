// The Claude Code dialect: settings.json hooks, `tool_name` mapped to Claude Code's names,
// `transcript_path` a string ('' without a dedicated file), CLAUDE_PROJECT_DIR in the env.

import type { AgentHandle } from '../../agent/types.js'
import type { HookDialect, HookFacts, PayloadServices } from '../protocol/dialect.js'
import type { HookEventName } from '../protocol/types.js'
import { claudeCodeToolName } from './tool-names.js'

/** `agent_type` of dsh sub-agents: the `subagent` tool works like Claude Code's general-purpose agent. */
export const CLAUDE_CODE_SUBAGENT_TYPE = 'general-purpose'

export const claudeCodeDialect: HookDialect = {
  name: 'claude-code',
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'Stop',
    'SubagentStart',
    'SubagentStop',
    'SessionEnd',
  ],
  subagentEvents: true,
  plainStdoutContext: ['SessionStart', 'UserPromptSubmit'],

  matchTarget(event, facts) {
    switch (event) {
      case 'PreToolUse':
      case 'PostToolUse':
        return toolCandidates(facts)
      case 'SessionStart':
        return [facts.source ?? 'startup']
      case 'SubagentStart':
      case 'SubagentStop':
        return [CLAUDE_CODE_SUBAGENT_TYPE]
      case 'SessionEnd':
        return [facts.reason ?? 'other']
      default:
        return undefined
    }
  },

  payload(event, facts, services) {
    const base = basePayload(event, facts.agent, services)
    switch (event) {
      case 'SessionStart':
        return { ...base, source: facts.source ?? 'startup' }
      case 'UserPromptSubmit':
        return { ...base, prompt: facts.prompt ?? '' }
      case 'PreToolUse':
      case 'PostToolUse': {
        const tool = facts.tool!
        const payload: Record<string, unknown> = {
          ...base,
          tool_name: claudeCodeToolName(tool.name),
          tool_input: toolInput(tool.input),
          tool_use_id: tool.callId,
        }
        if (event === 'PostToolUse' && tool.output)
          payload.tool_response = toolResponse(tool.name, tool.output)
        return payload
      }
      case 'Stop':
        return {
          ...base,
          stop_hook_active: facts.stopHookActive === true,
          last_assistant_message: facts.lastAssistantMessage ?? '',
        }
      case 'SubagentStart':
      case 'SubagentStop': {
        const child = facts.child ?? facts.agent
        const payload: Record<string, unknown> = {
          ...base,
          agent_id: child.id,
          agent_type: CLAUDE_CODE_SUBAGENT_TYPE,
        }
        if (event === 'SubagentStop') {
          payload.stop_hook_active = facts.stopHookActive === true
          payload.agent_transcript_path = services.locate(child.session.header)?.path ?? ''
          payload.last_assistant_message = facts.lastAssistantMessage ?? ''
        }
        return payload
      }
      case 'SessionEnd':
        return { ...base, reason: facts.reason ?? 'other' }
    }
  },

  env(facts) {
    return { CLAUDE_PROJECT_DIR: (facts.child ?? facts.agent).cwd }
  },
}

function basePayload(
  event: HookEventName,
  agent: AgentHandle,
  services: PayloadServices,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    session_id: agent.id,
    transcript_path: services.locate(agent.session.header)?.path ?? '',
    cwd: agent.cwd,
    permission_mode: services.permissionModeOf(agent),
    hook_event_name: event,
  }
  // Hooks fired inside a sub-agent's own session say which sub-agent it is.
  if (agent.session.header.origin === 'subagent') {
    payload.agent_id = agent.id
    payload.agent_type = CLAUDE_CODE_SUBAGENT_TYPE
  }
  return payload
}

function toolCandidates(facts: HookFacts): string[] {
  const name = facts.tool!.name
  const mapped = claudeCodeToolName(name)
  return mapped === name ? [name] : [mapped, name]
}

/** The parsed arguments object; arguments that are not a JSON object become `{}`. */
function toolInput(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {}
}

/**
 * Claude Code's Bash response is `{stdout, stderr, interrupted, isImage}`; dsh's bash result
 * is one text (stdout, then a `[stderr]` section and markers), sent as `stdout`.
 */
function toolResponse(name: string, output: { content: string; isError?: boolean }): Record<string, unknown> {
  if (name === 'bash') return { stdout: output.content, stderr: '', interrupted: false, isImage: false }
  return { content: output.content, is_error: output.isError === true }
}
