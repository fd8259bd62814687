// Tool approval over ACP: a plugin whose `tools/approve` listener asks the client with
// `session/request_permission` when a policy or hook answers `ask` for a tool call of a
// session this connection owns, and tells it when an allowed call starts running. Loaded on the harness context; unloading removes it.

import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk'
import type { Context } from 'cordis'
import type { ToolCallInfo } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'
import { locationsOf } from './checks.js'
import { acpToolCallId, parseArguments, textContent, toolKind, toolTitle } from './updates.js'

export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow this tool', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Always reject this tool', kind: 'reject_always' },
]

/** What the approval listener needs from the connection. */
export interface PermissionAsker {
  /** True when the session is served by this connection. */
  owns(sessionId: SessionId): boolean
  /** Asks the client; resolves true to allow. */
  ask(call: ToolCallInfo, reason: string): Promise<boolean>
  /** The call was allowed and runs now (its `pending` announcement becomes `in_progress`). */
  running(call: ToolCallInfo): void
}

export function acpPermissionPlugin(asker: PermissionAsker) {
  return {
    name: 'acp-permission',
    apply(ctx: Context) {
      // Calls of other agents (another front end, a sub-agent) fall through to other listeners.
      ctx.on('tools/approve', (call, reason) =>
        asker.owns(call.agent.id) ? asker.ask(call, reason) : undefined,
      )
      ctx.on('tools/running', (call) => {
        if (asker.owns(call.agent.id)) asker.running(call)
      })
    },
  }
}

/**
 * The decision for a client's answer. `always` choices are remembered per session and tool
 * name for the life of the connection; a cancelled request denies.
 */
export function decidePermission(
  response: RequestPermissionResponse,
  remember: (allow: boolean) => void,
): boolean {
  if (response.outcome.outcome !== 'selected') return false
  switch (response.outcome.optionId) {
    case 'allow_always':
      remember(true)
      return true
    case 'allow_once':
      return true
    case 'reject_always':
      remember(false)
      return false
    default:
      return false
  }
}

/**
 * The question for one tool call in the session the client calls `sessionId`: the call as
 * announced (`pending`), with the reason and its locations.
 */
export function permissionRequest(
  sessionId: SessionId,
  call: ToolCallInfo,
  reason: string,
): RequestPermissionRequest {
  const input = parseArguments(call.arguments)
  return {
    sessionId,
    toolCall: {
      toolCallId: acpToolCallId(call.turn, call.callId),
      title: toolTitle(call.name, input),
      kind: toolKind(call.name),
      status: 'pending',
      rawInput: input,
      ...locationsOf(call.name, input, call.agent.cwd),
      content: [textContent(reason)],
    },
    options: PERMISSION_OPTIONS,
  }
}
