// The Claude Code dialect: settings.json hooks, Claude Code's tool and field names,
// `transcript_path` a string ('' without a dedicated file), CLAUDE_PROJECT_DIR in the env.

import { isAbsolute, resolve } from 'node:path'
import { CLAUDE_CODE_TOOL_NAMES } from '../../permissions/claude-code-tool-names.js'
import type { ToolOutput } from '../../plugin-api/index.js'
import type { HookDialect, HookFacts, PayloadServices } from '../protocol/dialect.js'
import { toHookInput, toolCandidates } from '../protocol/tool-shape.js'
import type { HookEventName } from '../protocol/types.js'

/** `agent_type` of dsh sub-agents: the `subagent` tool works like Claude Code's general-purpose agent. */
export const CLAUDE_CODE_SUBAGENT_TYPE = 'general-purpose'

export const claudeCodeDialect: HookDialect = {
  name: 'claude-code',
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PermissionRequest',
    'PostToolUse',
    'PostToolUseFailure',
    'Notification',
    'Stop',
    'StopFailure',
    'SubagentStart',
    'SubagentStop',
    'PreCompact',
    'PostCompact',
    'SessionEnd',
  ],
  subagentEvents: true,
  plainStdoutContext: ['SessionStart', 'UserPromptSubmit'],
  envFileVariable: 'CLAUDE_ENV_FILE',
  canAsk: true,
  fallbackToolNames: CLAUDE_CODE_TOOL_NAMES,

  matchTarget(event, facts, services) {
    switch (event) {
      case 'PreToolUse':
      case 'PermissionRequest':
      case 'PostToolUse':
      case 'PostToolUseFailure': {
        const tool = facts.tool!
        return toolCandidates(services.toolShape(tool.name), tool.name)
      }
      case 'SessionStart':
        return [facts.source ?? 'startup']
      case 'SubagentStart':
      case 'SubagentStop':
        return [CLAUDE_CODE_SUBAGENT_TYPE]
      case 'SessionEnd':
        return [facts.reason ?? 'other']
      case 'PreCompact':
      case 'PostCompact':
        return [facts.compaction?.trigger ?? 'auto']
      case 'Notification':
        return [facts.notification?.type ?? '']
      case 'StopFailure':
        return [facts.error ?? 'unknown']
      default:
        return undefined
    }
  },

  denyMessage: (reason) => reason,

  // "Claude Code discards a PreCompact hook's `systemMessage` and `continue` fields" (and PostCompact's).
  discardsSystemMessage: ['PreCompact', 'PostCompact'],
  /** Exit 2 (stderr) or `decision: "block"` (`reason`) blocks; `continue: false` is discarded. */
  compactionBlock: (outcome) =>
    outcome.decision === 'deny' ? (outcome.reason ?? 'blocked by a PreCompact hook') : undefined,

  payload(event, facts, services) {
    const base = basePayload(event, facts, services)
    switch (event) {
      case 'SessionStart':
        return { ...base, source: facts.source ?? 'startup', model: services.modelOf(facts.agent) }
      case 'UserPromptSubmit':
        return { ...base, prompt: facts.prompt ?? '' }
      case 'PreToolUse':
      case 'PermissionRequest':
      case 'PostToolUse':
      case 'PostToolUseFailure': {
        const tool = facts.tool!
        const shape = services.toolShape(tool.name)
        const payload: Record<string, unknown> = {
          ...base,
          tool_name: shape.name,
          tool_input: absoluteFilePath(toHookInput(shape, tool.input), (facts.child ?? facts.agent).cwd),
          tool_use_id: tool.callId,
        }
        if (event === 'PermissionRequest') payload.permission_suggestions = []
        if (event === 'PostToolUse' && tool.output) payload.tool_response = toolResponse(tool.output)
        if (event === 'PostToolUseFailure') {
          payload.error = facts.error ?? ''
          payload.is_interrupt = facts.interrupted === true
        }
        return payload
      }
      case 'Notification':
        return {
          ...base,
          message: facts.notification?.message ?? '',
          ...(facts.notification?.title !== undefined ? { title: facts.notification.title } : {}),
          notification_type: facts.notification?.type ?? '',
        }
      case 'Stop':
        return {
          ...base,
          stop_hook_active: facts.stopHookActive === true,
          last_assistant_message: facts.lastAssistantMessage ?? '',
        }
      case 'StopFailure':
        return {
          ...base,
          error: facts.error ?? 'unknown',
          last_assistant_message: facts.lastAssistantMessage ?? '',
        }
      case 'SubagentStart':
      case 'SubagentStop': {
        // Every sub-agent field names the child, also when the firing agent is itself a
        // sub-agent (whose own fields the common part carries).
        const child = facts.child ?? facts.agent
        const payload: Record<string, unknown> = {
          ...base,
          agent_id: child.id,
          agent_type: CLAUDE_CODE_SUBAGENT_TYPE,
          agent_transcript_path: services.locate(child.session.header)?.path ?? '',
        }
        const parent = child.session.header.parentSession
        if (parent !== undefined) payload.parent_session_id = parent
        else delete payload.parent_session_id
        if (event === 'SubagentStop') {
          payload.stop_hook_active = facts.stopHookActive === true
          payload.last_assistant_message = facts.lastAssistantMessage ?? ''
        }
        return payload
      }
      case 'PreCompact':
        return {
          ...base,
          trigger: facts.compaction?.trigger ?? 'auto',
          // What the user passed to /compact; empty for an automatic compaction.
          custom_instructions: facts.compaction?.instructions ?? '',
        }
      case 'PostCompact':
        return {
          ...base,
          trigger: facts.compaction?.trigger ?? 'auto',
          // A compaction that only pruned tool outputs wrote no summary.
          compact_summary: facts.compaction?.summary ?? '',
        }
      case 'SessionEnd':
        return { ...base, reason: facts.reason ?? 'other' }
    }
  },

  env(facts) {
    return { CLAUDE_PROJECT_DIR: facts.projectDir ?? (facts.child ?? facts.agent).cwd }
  },
}

/** Claude Code sends `file_path` absolute; dsh's file tools also take one relative to the cwd. */
function absoluteFilePath(input: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const path = input.file_path
  if (typeof path !== 'string' || path === '' || isAbsolute(path)) return input
  return { ...input, file_path: resolve(cwd, path) }
}

function basePayload(
  event: HookEventName,
  facts: HookFacts,
  services: PayloadServices,
): Record<string, unknown> {
  const agent = facts.agent
  const transcript = services.locate(agent.session.header)?.path ?? ''
  const payload: Record<string, unknown> = {
    session_id: agent.id,
    transcript_path: transcript,
    cwd: agent.cwd,
    permission_mode: services.permissionMode(agent),
    effort: services.effortOf(agent),
    hook_event_name: event,
  }
  // Claude Code's `prompt_id` names the user prompt being handled and is absent before the
  // first one; dsh's is the turn, as Codex's `turn_id`.
  if (facts.turn !== undefined) payload.prompt_id = `${agent.id}:turn-${facts.turn}`
  // Hooks fired inside a sub-agent's own session: `session_id` and `transcript_path` are the
  // sub-agent's (dsh's rule); Claude Code's sub-agent fields say which sub-agent and whose child.
  const header = agent.session.header
  if (header.origin === 'subagent') {
    payload.agent_id = agent.id
    payload.agent_type = CLAUDE_CODE_SUBAGENT_TYPE
    payload.agent_transcript_path = transcript
    if (header.parentSession !== undefined) payload.parent_session_id = header.parentSession
  }
  return payload
}

/**
 * Claude Code's Bash response is `{stdout, stderr, interrupted, isImage}`; dsh adds `exit_code`.
 * File tools hand their result in Claude Code's shape (`details.hookResponse`: Write's
 * `{type, filePath, content, structuredPatch, originalFile}`, Edit's, MultiEdit's, Read's
 * `{type: "text", file}`), sent as it is. Other tools send their text as `content`.
 */
function toolResponse(output: ToolOutput): Record<string, unknown> {
  const details = output.details
  const shaped = details?.hookResponse
  if (shaped !== null && typeof shaped === 'object' && !Array.isArray(shaped))
    return { ...(shaped as Record<string, unknown>) }
  if (details && typeof details.stdout === 'string') {
    return {
      stdout: details.stdout,
      stderr: typeof details.stderr === 'string' ? details.stderr : '',
      interrupted: details.interrupted === true,
      isImage: false,
      exit_code: details.exitCode ?? null,
    }
  }
  return { ...(details ?? {}), content: output.content, is_error: output.isError === true }
}
