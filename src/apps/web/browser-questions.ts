// What the web server asks the browser: `ask` approvals of the tool calls of the sessions
// it hosts (and their sub-agents), and project-trust questions, through one plugin on the
// harness that vanishes with the server.

import type { Context, Fiber } from 'cordis'
import type { Harness } from '../../harness/compose.js'
import type { AgentHandle, ToolCallInfo } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'
import { Approvals } from './approvals.js'
import type { LiveChannelRegistry } from './channels.js'
import { TrustQuestions } from './trust-questions.js'
import type { PendingApproval } from './types.js'

/** How far up a sub-agent's lineage the owner of a call is looked for. */
const MAX_LINEAGE_DEPTH = 64

export class BrowserQuestions {
  private readonly approvals: Approvals
  readonly trust: TrustQuestions
  private readonly plugin: Fiber

  /** `isHosted` says whether this server drives a session (its tabs then answer its calls). */
  constructor(
    private readonly harness: Harness,
    channels: LiveChannelRegistry,
    private readonly isHosted: (id: SessionId) => boolean,
  ) {
    this.approvals = new Approvals((id, message) => channels.send(id, message))
    this.trust = new TrustQuestions((message) => channels.broadcastAll(message))
    this.plugin = harness.ctx.plugin({
      name: 'web-questions',
      apply: (ctx: Context) => {
        // Calls of agents this server does not drive fall through to other listeners.
        ctx.on('tools/approve', (call, reason) => this.ask(call, reason))
        // Project trust is asked in the browser, once per folder, like chat asks on its terminal.
        ctx.get('projectTrust')?.askWith((folder, brings) => this.trust.ask(folder, brings))
      },
    })
  }

  /** The approvals the page of `id` shows. */
  pendingApprovals(id: SessionId): PendingApproval[] {
    return this.approvals.pending(id)
  }

  /** The browser's answer to an approval; false when it is no longer waiting. */
  answerApproval(approvalId: string, allowed: boolean): boolean {
    return this.approvals.answer(approvalId, allowed)
  }

  /** The server stops: waiting calls are denied, trust questions fail (the folder stays untrusted). */
  cancelAll(): void {
    this.approvals.denyAll()
    this.trust.cancelAll()
  }

  /** Unloads the plugin: nothing is asked here any more. */
  async dispose(): Promise<void> {
    this.cancelAll()
    await this.plugin.dispose()
  }

  /** The hosted session a call belongs to: its own, or the nearest hosted ancestor of a sub-agent. */
  private ownerOf(agent: AgentHandle): SessionId | undefined {
    let current: AgentHandle | undefined = agent
    for (let depth = 0; current && depth < MAX_LINEAGE_DEPTH; depth++) {
      if (this.isHosted(current.id)) return current.id
      const parent: SessionId | undefined = current.session.header.parentSession
      current = parent === undefined ? undefined : this.harness.agents.get(parent)
    }
    return undefined
  }

  private ask(call: ToolCallInfo, reason: string): Promise<boolean> | undefined {
    const owner = this.ownerOf(call.agent)
    return owner === undefined ? undefined : this.approvals.ask(call, reason, owner)
  }
}
