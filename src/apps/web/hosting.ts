// What the web server drives: the agents it hosts (created, resumed or forked here, each
// holding its session's writer lease), their live channels, and the `ask` approvals it
// and project-trust questions it puts to the browser. A session it does not host is shown
// read-only and tailed.

import { stat } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { isAbsolute, join } from 'node:path'
import type { Context, Fiber } from 'cordis'
import { mintSessionId } from '../../agent/configured.js'
import type { ToolCallInfo } from '../../agent/pipeline.js'
import type { AgentHandle } from '../../agent/types.js'
import { errorMessage, isDshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import type { ModelChoice } from '../../llm/adapter.js'
import { PersistenceErrorCode } from '../../persistence/errors.js'
import { notFound } from '../../persistence/persistence.js'
import type { SessionId } from '../../session/types.js'
import { SPILL_FOLDER } from '../../spill/index.js'
import { sessionLineage } from '../cli/session-lineage.js'
import { type RemovalOutcome, removeSessionTree } from '../cli/session-removal.js'
import { Approvals } from './approvals.js'
import { HttpError } from './errors.js'
import { LiveChannel, LiveClient } from './live.js'
import { TrustQuestions } from './trust-questions.js'
import type { LiveMessage, SessionResponse, SessionState } from './types.js'

/** The label of sessions the web UI mints ids for: `web-session-<uuid>`. */
export const WEB_AGENT_LABEL = 'web'

interface Hosted {
  agent: AgentHandle
  running: AbortController | undefined
  detach: () => void
}

export class WebHost {
  private readonly hosted = new Map<SessionId, Hosted>()
  private readonly channels = new Map<SessionId, LiveChannel>()
  private readonly approvals = new Approvals((id, message) => this.send(id, message))
  /** The tabs on the sessions page: they get the trust questions. */
  private readonly everywhere = new LiveChannel()
  readonly trust = new TrustQuestions((message) => {
    this.everywhere.broadcast(message)
    for (const channel of this.channels.values()) channel.broadcast(message)
  })
  private readonly questions: Fiber

  constructor(private readonly harness: Harness) {
    this.questions = harness.ctx.plugin({
      name: 'web-questions',
      apply: (ctx: Context) => {
        // Calls of agents this server does not drive fall through to other listeners.
        ctx.on('tools/approve', (call, reason) => this.ask(call, reason))
        // Project trust is asked in the browser, once per folder, like chat asks on its terminal.
        ctx.get('projectTrust')?.askWith((folder, brings) => this.trust.ask(folder, brings))
      },
    })
  }

  /** `running` / `hosted` for a session this server drives. */
  status(id: SessionId): 'running' | 'hosted' | undefined {
    const hosted = this.hosted.get(id)
    if (!hosted) return undefined
    return hosted.agent.busy || hosted.running ? 'running' : 'hosted'
  }

  state(id: SessionId): SessionState {
    const hosted = this.hosted.get(id)
    const agent = hosted?.agent
    return {
      hosted: agent !== undefined,
      // `running` is set before the agent's prompt marks it busy.
      busy: (agent?.busy ?? false) || hosted?.running !== undefined,
      model: agent?.model.model ?? this.harness.config.model.name ?? null,
      effort: agent?.model.effort ?? this.harness.config.model.effort ?? null,
      approvals: this.approvals.pending(id),
    }
  }

  /** The session's header and whole log: from the live agent when hosted, else read-only from the backend. */
  async describe(id: SessionId): Promise<Omit<SessionResponse, 'currency' | 'prices'>> {
    const persistence = this.harness.ctx.get('sessionPersistence')!
    const live = this.hosted.get(id)?.agent.session
    const { header, events } = live
      ? { header: live.header, events: [...live.events] }
      : await persistence.load(id)
    return { header, events, state: this.state(id), path: persistence.locate(header)?.path ?? null }
  }

  /** Attaches a tab: it gets the events from `from` on, pending approvals, then everything live. */
  async subscribe(id: SessionId, res: ServerResponse, from: number): Promise<void> {
    const persistence = this.harness.ctx.get('sessionPersistence')!
    const hosted = this.hosted.get(id)
    const events = hosted ? hosted.agent.session.events : (await persistence.load(id)).events
    const client = new LiveClient(res)
    const channel = this.channel(id)
    channel.clients.add(client)
    client.onClose(() => {
      channel.clients.delete(client)
      if (channel.clients.size === 0) {
        channel.stopTail()
        this.channels.delete(id)
      }
    })
    for (const event of events.slice(from)) client.send({ kind: 'event', event })
    client.send({ kind: 'state', state: this.state(id) })
    for (const question of this.trust.pending()) client.send({ kind: 'trust', question })
    if (!this.hosted.has(id)) channel.startTail(persistence, id, events.length)
  }

  /** Attaches a tab that shows no session (the sessions page): it gets the trust questions. */
  subscribeEverywhere(res: ServerResponse): void {
    const client = new LiveClient(res)
    this.everywhere.clients.add(client)
    client.onClose(() => this.everywhere.clients.delete(client))
    for (const question of this.trust.pending()) client.send({ kind: 'trust', question })
  }

  /**
   * Starts a new session in `cwd` and hosts it. When the folder is an untrusted project
   * that brings something, this waits for the browser's answer to the trust question.
   */
  async create(cwd: string, model: ModelChoice): Promise<SessionId> {
    if (!isAbsolute(cwd)) throw new HttpError(400, `the folder must be an absolute path: ${cwd}`)
    const info = await stat(cwd).catch(() => undefined)
    if (!info?.isDirectory()) throw new HttpError(400, `no such folder: ${cwd}`)
    const agent = await this.harness.agents.create({
      sessionId: mintSessionId(WEB_AGENT_LABEL),
      meta: { cwd },
      model,
    })
    this.adopt(agent)
    return agent.id
  }

  /**
   * Hosts a stored session (resume: takes its writer lease). A session another process
   * writes stays read-only: 409 naming the holder.
   */
  async host(id: SessionId): Promise<AgentHandle> {
    const hosted = this.hosted.get(id)
    if (hosted) return hosted.agent
    if (this.harness.agents.get(id)) throw new HttpError(409, 'a sub-agent of a running turn drives it')
    try {
      const agent = await this.harness.agents.resume({ resumeSessionId: id })
      this.adopt(agent)
      return agent
    } catch (error) {
      if (isDshError(error, PersistenceErrorCode.Locked))
        throw new HttpError(409, `read-only: ${errorMessage(error)}`)
      if (isDshError(error, PersistenceErrorCode.NotFound)) throw new HttpError(404, errorMessage(error))
      throw error
    }
  }

  async fork(id: SessionId): Promise<SessionId> {
    const agent = await this.harness.agents.fork({ sourceSessionId: id }).catch((error: unknown) => {
      if (isDshError(error, PersistenceErrorCode.NotFound)) throw new HttpError(404, errorMessage(error))
      throw error
    })
    this.adopt(agent)
    return agent.id
  }

  /** Starts a turn; resolves once it started (its outcome arrives on the live stream). */
  async prompt(id: SessionId, text: string): Promise<void> {
    const agent = await this.host(id)
    const hosted = this.hosted.get(id)!
    if (agent.busy || hosted.running) throw new HttpError(409, 'a turn is running: wait for it or stop it')
    const controller = new AbortController()
    hosted.running = controller
    void agent
      .prompt(text, { signal: controller.signal })
      .catch((error: unknown) => this.send(id, { kind: 'error', message: errorMessage(error) }))
      .finally(() => {
        hosted.running = undefined
        this.send(id, { kind: 'state', state: this.state(id) })
      })
    this.send(id, { kind: 'state', state: this.state(id) })
  }

  /** Cancels the running turn; false when none runs. */
  stop(id: SessionId): boolean {
    const running = this.hosted.get(id)?.running
    running?.abort()
    return running !== undefined
  }

  setModel(id: SessionId, choice: ModelChoice): void {
    const hosted = this.hosted.get(id)
    if (!hosted) throw new HttpError(409, 'the session is not open here: resume it first')
    hosted.agent.setModel(choice)
    this.send(id, { kind: 'state', state: this.state(id) })
  }

  /** Stops hosting a session: its agent is disposed (flushed, lease released); it becomes read-only here. */
  async release(id: SessionId): Promise<void> {
    const hosted = this.hosted.get(id)
    if (!hosted) return
    if (hosted.agent.busy) throw new HttpError(409, 'a turn is running: stop it first')
    hosted.detach()
    this.hosted.delete(id)
    await this.harness.agents.dispose(id)
    const channel = this.channels.get(id)
    if (channel) {
      channel.broadcast({ kind: 'state', state: this.state(id) })
      channel.startTail(this.harness.ctx.get('sessionPersistence')!, id, hosted.agent.session.length)
    }
  }

  /**
   * Removes a stored session with its sub-agent sessions and spill files (the rules of
   * `dsh sessions rm`). A session hosted here is released first unless a turn runs; one
   * another process writes is refused (409, naming the writer) and keeps its sub-agents.
   */
  async remove(id: SessionId): Promise<RemovalOutcome[]> {
    const persistence = this.harness.ctx.get('sessionPersistence')!
    const hosted = this.hosted.get(id)
    if (hosted?.agent.busy || hosted?.running) throw new HttpError(409, 'a turn is running: stop it first')
    const summaries = await this.harness.sessions.listStored()
    if (!summaries.some((summary) => summary.header.id === id) && !(await persistence.exists(id)))
      throw notFound(id)
    if (hosted) await this.release(id)
    const outcomes = await removeSessionTree(
      persistence,
      sessionLineage(summaries),
      join(this.harness.config.home, SPILL_FOLDER),
      id,
    )
    const top = outcomes[0]
    if (top?.kind === 'refused') throw new HttpError(409, top.message)
    for (const outcome of outcomes) {
      if (outcome.kind !== 'removed') continue
      const channel = this.channels.get(outcome.id)
      channel?.broadcast({ kind: 'error', message: 'this session was removed' })
      channel?.close()
      this.channels.delete(outcome.id)
    }
    return outcomes
  }

  /** The browser's answer to an approval; false when it is no longer waiting. */
  answer(approvalId: string, allowed: boolean): boolean {
    return this.approvals.answer(approvalId, allowed)
  }

  async dispose(): Promise<void> {
    this.approvals.denyAll()
    this.trust.cancelAll()
    this.everywhere.close()
    for (const hosted of this.hosted.values()) {
      hosted.running?.abort()
      hosted.detach()
    }
    for (const channel of this.channels.values()) channel.close()
    this.channels.clear()
    await this.questions.dispose()
  }

  private adopt(agent: AgentHandle): void {
    const id = agent.id
    this.channels.get(id)?.stopTail()
    const offAppend = agent.session.onAppend((_session, event) => this.send(id, { kind: 'event', event }))
    const offOutput = agent.onOutput((output) => this.send(id, { kind: 'output', output }))
    this.hosted.set(id, {
      agent,
      running: undefined,
      detach: () => {
        offAppend()
        offOutput()
      },
    })
    // Tabs already watching it (read-only until now) learn that it is open here.
    this.send(id, { kind: 'state', state: this.state(id) })
  }

  private send(id: SessionId, message: LiveMessage): void {
    this.channels.get(id)?.broadcast(message)
  }

  private channel(id: SessionId): LiveChannel {
    let channel = this.channels.get(id)
    if (!channel) {
      channel = new LiveChannel()
      this.channels.set(id, channel)
    }
    return channel
  }

  /** The hosted session a call belongs to: its own, or the nearest hosted ancestor of a sub-agent. */
  private ownerOf(agent: AgentHandle): SessionId | undefined {
    let current: AgentHandle | undefined = agent
    for (let depth = 0; current && depth < 64; depth++) {
      if (this.hosted.has(current.id)) return current.id
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
