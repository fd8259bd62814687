// `ask` approvals put to the browser: a tool call waits until a tab on its (top-level)
// session answers, or its turn is cancelled, which denies it.

import { randomUUID } from 'node:crypto'
import type { ToolCallInfo } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'
import { proposedDiff } from './approval-diff.js'
import type { LiveMessage, PendingApproval } from './types.js'

interface Waiting {
  approval: PendingApproval
  answer(allowed: boolean): void
}

export class Approvals {
  private readonly waiting = new Map<string, Waiting>()

  /** `send` reaches the tabs on one session. */
  constructor(private readonly send: (id: SessionId, message: LiveMessage) => void) {}

  /** The approvals the page of `sessionId` shows. */
  pending(sessionId: SessionId): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.approval).filter((a) => a.sessionId === sessionId)
  }

  /** Puts the call to the tabs of `owner`; resolves with the answer (false when the turn is cancelled). */
  ask(call: ToolCallInfo, reason: string, owner: SessionId): Promise<boolean> {
    const approval: PendingApproval = {
      id: randomUUID(),
      sessionId: owner,
      callerSessionId: call.agent.id,
      callId: call.callId,
      tool: call.name,
      command: whatRuns(call),
      reason,
    }
    const diff = proposedDiff(call.name, call.input)
    if (diff) approval.diff = diff
    return new Promise<boolean>((resolve) => {
      const answer = (allowed: boolean) => {
        if (!this.waiting.delete(approval.id)) return
        call.signal.removeEventListener('abort', cancelled)
        this.send(owner, { kind: 'approval-done', id: approval.id })
        resolve(allowed)
      }
      const cancelled = () => answer(false)
      this.waiting.set(approval.id, { approval, answer })
      call.signal.addEventListener('abort', cancelled, { once: true })
      this.send(owner, { kind: 'approval', approval })
    })
  }

  /** The browser's answer; false when that approval is no longer waiting. */
  answer(approvalId: string, allowed: boolean): boolean {
    const waiting = this.waiting.get(approvalId)
    waiting?.answer(allowed)
    return waiting !== undefined
  }

  /** The server stops: every waiting call is denied. */
  denyAll(): void {
    for (const waiting of [...this.waiting.values()]) waiting.answer(false)
  }
}

/** Exactly what the call would run: the command of bash, else the arguments as the model sent them. */
function whatRuns(call: ToolCallInfo): string {
  const input = call.input as { command?: unknown } | undefined
  if (call.name === 'bash' && typeof input?.command === 'string') return input.command
  if (call.input !== undefined) return JSON.stringify(call.input, null, 2)
  return call.arguments
}
