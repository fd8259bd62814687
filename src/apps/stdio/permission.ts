// Tool approval over `dsh stdio`: when the permission policy answers `ask` for a call of the
// attached agent, and the client said in `initialize` that it answers permission requests,
// dsh sends `session/requestPermission` (a JSON-RPC request with an id) and waits for the
// client's answer. Fail closed: an error, a malformed answer, the input ending or the turn
// being cancelled while the question is open all deny, and say so on stderr.

import type { Context } from 'cordis'
import * as z from 'zod'
import type { AgentHandle, ApprovalAnswer, ToolCallInfo } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'
import type { JsonRpcResponse } from './json-rpc.js'
import { StdioRequest } from './protocol.js'

/** The choices a client may answer; `allow_always` holds for the tool's name until the server ends. */
export const PERMISSION_OUTCOMES = ['allow', 'allow_always', 'deny'] as const

const answerSchema = z.object({
  outcome: z.enum(PERMISSION_OUTCOMES),
  /** With `deny`: what the user wants instead, given to the model. */
  feedback: z.string().optional(),
})

export interface PermissionRequestParams {
  sessionId: SessionId
  toolCall: { callId: string; name: string; input: unknown }
  /** Why the policy asks (the rule or mode that requires approval). */
  reason: string
  options: readonly (typeof PERMISSION_OUTCOMES)[number][]
}

interface Pending {
  settle: (answer: JsonRpcResponse | string) => void
}

export class StdioPermissions {
  private next = 1
  private readonly pending = new Map<string, Pending>()
  private readonly always = new Set<string>()
  private inputEnded = false

  constructor(
    /** Writes a request line; false when nothing can be written any more. */
    private readonly send: (message: object) => boolean,
    /** One line on stderr saying why a question was denied without an answer. */
    private readonly warn: (line: string) => void,
  ) {}

  /** Asks the client about one call; resolves with the approval answer (never rejects). */
  ask(sessionId: SessionId, call: ToolCallInfo, reason: string): Promise<ApprovalAnswer> {
    if (this.always.has(call.name)) return Promise.resolve(true)
    const denied = (why: string): false => {
      this.warn(`permission for ${call.name} denied: ${why}`)
      return false
    }
    if (this.inputEnded) return Promise.resolve(denied('the input ended, nobody can answer'))
    if (call.signal.aborted) return Promise.resolve(false)
    const id = `dsh-permission-${this.next++}`
    const params: PermissionRequestParams = {
      sessionId,
      toolCall: { callId: call.callId, name: call.name, input: call.input ?? call.arguments },
      reason,
      options: PERMISSION_OUTCOMES,
    }
    return new Promise<ApprovalAnswer>((resolve) => {
      const onAbort = () => settle('the turn was cancelled')
      const settle = (answer: JsonRpcResponse | string) => {
        this.pending.delete(id)
        call.signal.removeEventListener('abort', onAbort)
        resolve(this.decide(call.name, answer, denied))
      }
      this.pending.set(id, { settle })
      call.signal.addEventListener('abort', onAbort, { once: true })
      const sent = this.send({ jsonrpc: '2.0', id, method: StdioRequest.RequestPermission, params })
      if (!sent) settle('the client cannot be written to')
    })
  }

  /** A response line from the client: true when it answered one of dsh's requests. */
  receive(response: JsonRpcResponse): boolean {
    const pending = this.pending.get(String(response.id))
    if (!pending) return false
    pending.settle(response)
    return true
  }

  /** The input ended: every open question, and every later one, is denied. */
  endInput(): void {
    this.inputEnded = true
    for (const pending of [...this.pending.values()]) pending.settle('the input ended before an answer came')
  }

  private decide(
    tool: string,
    answer: JsonRpcResponse | string,
    denied: (why: string) => false,
  ): ApprovalAnswer {
    if (typeof answer === 'string') return denied(answer)
    if (answer.error) return denied(`the client answered an error (${answer.error.message})`)
    const parsed = answerSchema.safeParse(answer.result)
    if (!parsed.success)
      return denied('the client\'s answer is not {"outcome": "allow" | "allow_always" | "deny"}')
    const { outcome, feedback } = parsed.data
    if (outcome === 'allow_always') this.always.add(tool)
    if (outcome !== 'deny') return true
    return feedback !== undefined && feedback.trim() !== '' ? { feedback } : false
  }
}

/** Agents whose client answers permission requests: the harness's `canAsk` for `dsh stdio`. */
const ASKING_AGENTS = new Set<string>()

/** `permissions.canAsk` of a harness serving `dsh stdio`: true for agents whose client answers `ask`s. */
export function stdioCanAsk(agent: AgentHandle): boolean {
  return ASKING_AGENTS.has(agent.id)
}

/** The agent's `ask`s go to the client as `session/requestPermission`; the returned function ends that. */
export function askClient(ctx: Context, agent: AgentHandle, permissions: StdioPermissions): () => void {
  const approvals = ctx.plugin({
    name: 'stdio-permission',
    apply: (scope: Context) => {
      // Calls of other agents (a sub-agent, another front end) fall through: denied there.
      scope.on('tools/approve', (call, reason) =>
        call.agent.id === agent.id ? permissions.ask(agent.id, call, reason) : undefined,
      )
    },
  })
  ASKING_AGENTS.add(agent.id)
  return () => {
    ASKING_AGENTS.delete(agent.id)
    void approvals.dispose()
  }
}
