// The project-trust question over ACP: when a session's folder was never trusted (or its
// configuration changed since) and it would bring hooks, `.mcp.json` servers, allow rules,
// skills or commands, the client is asked with `session/request_permission` before the
// session's agent is built, so one answer covers all of them. Fails closed: a client that
// errors or cancels leaves the folder untrusted (and nothing is remembered).

import { homedir } from 'node:os'
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk'
import type { Context } from 'cordis'
import { errorMessage } from '../../core/errors.js'
import { findProjectRoot } from '../../core/project-root.js'
import type { McpConnection } from '../../mcp/index.js'
import type { SessionId } from '../../session/types.js'
import { type ProjectTrustDecision, refusalLine } from '../../trust/index.js'
import { textContent } from './updates.js'

export const TRUST_OPTIONS: PermissionOption[] = [
  { optionId: 'trust_once', name: 'Trust for this run', kind: 'allow_once' },
  { optionId: 'trust_always', name: 'Always trust this folder', kind: 'allow_always' },
  { optionId: 'trust_reject', name: 'Do not trust', kind: 'reject_once' },
]

/** The client's answer: true (always, remembered), 'once', false; a cancelled question throws (fail closed). */
export function trustAnswer(response: RequestPermissionResponse): boolean | 'once' {
  if (response.outcome.outcome !== 'selected') throw new Error('the trust question was cancelled')
  switch (response.outcome.optionId) {
    case 'trust_always':
      return true
    case 'trust_once':
      return 'once'
    default:
      return false
  }
}

/** The agent message telling the client what became of its folder's configuration. */
export function trustOutcomeLine(
  folder: string,
  decision: ProjectTrustDecision,
  brings: readonly string[],
): string | undefined {
  const what = brings.join(', ')
  switch (decision.reason) {
    case 'accepted':
      return `Project ${folder} is trusted (remembered): loaded ${what}.`
    case 'accepted-once':
      return `Project ${folder} is trusted for this run: loaded ${what}.`
    case 'remembered':
    case 'granted':
    case 'disabled':
      return undefined
    default:
      return `${refusalLine(folder, decision, brings)}.`
  }
}

export function agentMessage(text: string, meta?: Record<string, unknown>): SessionUpdate {
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `${text}\n\n` },
    ...(meta ? { _meta: { dsh: meta } } : {}),
  }
}

/** After the server's start settled: the agent message for a failed start, else undefined. */
export async function reportFailedStart(server: McpConnection): Promise<SessionUpdate | undefined> {
  await server.start()
  if (server.state !== 'failed') return undefined
  const error = server.error ?? 'unknown error'
  return agentMessage(`MCP server ${server.name} failed to start: ${error}`, {
    mcpServer: { name: server.name, state: 'failed', error },
  })
}

/**
 * Asks the trust question in the session being set up in that folder. Registered as the
 * trust service's asker for the life of the connection; a question about a folder no session
 * is being set up in (an agent built some other way) throws, which leaves it untrusted.
 */
export class AcpTrust {
  /** Project roots of sessions being set up, and the session a question about each goes to. */
  private readonly setting = new Map<string, SessionId>()
  private seq = 0
  /** Roots whose question failed while their session is set up: not asked twice. */
  private readonly failed = new Set<string>()

  constructor(private readonly client: () => AgentContext | undefined) {}

  readonly ask = async (folder: string, brings: readonly string[]): Promise<boolean | 'once'> => {
    const client = this.client()
    const sessionId = this.setting.get(folder)
    if (!client || sessionId === undefined) throw new Error('no ACP session is being set up to ask in')
    if (this.failed.has(folder)) throw new Error('the client could not answer the trust question')
    try {
      const response = await client.request('session/request_permission', {
        sessionId,
        toolCall: {
          toolCallId: `trust/${++this.seq}`,
          title: `Trust project folder ${folder}?`,
          kind: 'other',
          status: 'pending',
          rawInput: { folder, brings: [...brings] },
          content: [textContent(`This folder would bring: ${brings.join(', ')}`)],
        },
        options: TRUST_OPTIONS,
        _meta: { dsh: { trust: { folder, brings: [...brings] } } },
      })
      return trustAnswer(response)
    } catch (error) {
      this.failed.add(folder)
      throw error
    }
  }

  /**
   * Decides trust for the project around `cwd` while `sessionId` is set up (the question is
   * sent before the session/new answer, under the id that answer will carry). Resolves with
   * the agent message to show once the client knows the session, if any.
   */
  async decide(ctx: Context, sessionId: SessionId, cwd: string): Promise<SessionUpdate | undefined> {
    const service = ctx.get('projectTrust')
    if (!service) return undefined
    const root = findProjectRoot(cwd)
    // The home folder is never a project (its files are the user's own).
    if (root === homedir()) return undefined
    const brings: string[] = []
    ctx.emit('trust/brings', root, brings)
    if (brings.length === 0) return undefined
    this.setting.set(root, sessionId)
    this.failed.delete(root)
    try {
      const decision = await service.decide(root)
      const line = trustOutcomeLine(root, decision, brings)
      return line ? agentMessage(line, { trust: { folder: root, ...decision } }) : undefined
    } catch (error) {
      const line = `Project ${root} is not trusted: the trust question could not be answered (${errorMessage(error)}); not loaded: ${brings.join(', ')}.`
      return agentMessage(line, { trust: { folder: root, trusted: false, reason: 'unanswered' } })
    }
  }

  /** The session is set up: later questions about its folder have nobody to go to. */
  done(sessionId: SessionId): void {
    for (const [root, id] of this.setting) {
      if (id !== sessionId) continue
      this.setting.delete(root)
      this.failed.delete(root)
    }
  }
}
