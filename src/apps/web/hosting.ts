// What the web server drives: the agents it hosts (created, resumed or forked here, each
// holding its session's writer lease), their turns, and removal. Live streams are in
// channels.ts, the questions put to the browser in browser-questions.ts. A session it
// does not host is shown read-only and tailed.

import { stat } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { isAbsolute, join } from 'node:path'
import { mintSessionId } from '../../agent/configured.js'
import { type ClientImage, prepareClientImages, visionRefusal } from '../../attachments/index.js'
import { type CompactionResult, ContextErrorCode } from '../../context/index.js'
import { DshError, errorMessage, isDshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import { renameStored, titleData } from '../../history/index.js'
import type { ModelChoice } from '../../llm/adapter.js'
import { PersistenceErrorCode } from '../../persistence/errors.js'
import { notFound } from '../../persistence/persistence.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/types.js'
import { SPILL_FOLDER } from '../../spill/index.js'
import { sessionLineage } from '../shared/session-lineage.js'
import { type RemovalOutcome, removeSessionTree } from '../shared/session-removal.js'
import { BrowserQuestions } from './browser-questions.js'
import { LiveChannelRegistry } from './channels.js'
import { HttpError } from './errors.js'
import { forwardTerminals, terminalViews } from './terminal-views.js'
import type { TrustQuestions } from './trust-questions.js'
import type { ContextFill, LiveMessage, SessionResponse, SessionState } from './types.js'

/** The label of sessions the web UI mints ids for: `web-session-<uuid>`. */
export const WEB_AGENT_LABEL = 'web'

interface Hosted {
  agent: AgentHandle
  /** The running turn's or compaction's cancellation (Stop aborts it). */
  running: AbortController | undefined
  compacting: boolean
  detach: () => void
}

/** Log events after which the context fill is sent again: a step ended, a compaction was appended. */
const CONTEXT_CHANGES: ReadonlySet<string> = new Set(['step/end', 'context/compacted', 'turn/end'])

export class WebHost {
  private readonly hosted = new Map<SessionId, Hosted>()
  private readonly channels = new LiveChannelRegistry()
  private readonly questions: BrowserQuestions

  /** Stops forwarding terminal changes to the tabs. */
  private readonly stopTerminals: () => void

  constructor(private readonly harness: Harness) {
    this.questions = new BrowserQuestions(harness, this.channels, (id) => this.hosted.has(id))
    this.stopTerminals = forwardTerminals(
      harness.ctx,
      (id) => this.hosted.has(id),
      (id, message) => this.send(id, message),
    )
  }

  /** The project-trust questions waiting for the browser. */
  get trust(): TrustQuestions {
    return this.questions.trust
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
      compacting: hosted?.compacting ?? false,
      context: agent ? contextFill(agent) : null,
      model: agent?.model.model ?? this.harness.config.model.name ?? null,
      effort: agent?.model.effort ?? this.harness.config.model.effort ?? null,
      approvals: this.questions.pendingApprovals(id),
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
    const { client, channel } = this.channels.attach(id, res)
    for (const event of events.slice(from)) client.send({ kind: 'event', event })
    client.send({ kind: 'state', state: this.state(id) })
    for (const question of this.trust.pending()) client.send({ kind: 'trust', question })
    if (hosted)
      for (const terminal of terminalViews(this.harness.ctx, id)) client.send({ kind: 'terminal', terminal })
    if (!this.hosted.has(id)) channel.startTail(persistence, id, events.length)
  }

  /** Attaches a tab that shows no session (the sessions page): it gets the trust questions. */
  subscribeEverywhere(res: ServerResponse): void {
    const client = this.channels.attachEverywhere(res)
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

  async fork(id: SessionId, atTurn?: number): Promise<SessionId> {
    const options = { sourceSessionId: id, ...(atTurn !== undefined ? { atTurn } : {}) }
    const agent = await this.harness.agents.fork(options).catch((error: unknown) => {
      if (isDshError(error, PersistenceErrorCode.NotFound)) throw new HttpError(404, errorMessage(error))
      if (isDshError(error, SessionErrorCode.BadTurn)) throw new HttpError(400, errorMessage(error))
      throw error
    })
    this.adopt(agent)
    return agent.id
  }

  /** Starts a turn; resolves once it started (its outcome arrives on the live stream). */
  async prompt(id: SessionId, text: string, images: readonly ClientImage[] = []): Promise<void> {
    const agent = await this.host(id)
    const hosted = this.hosted.get(id)!
    if (hosted.compacting) throw new HttpError(409, 'a compaction is running: wait for it or stop it')
    if (agent.busy || hosted.running) throw new HttpError(409, 'a turn is running: wait for it or stop it')
    // Bad images, too many, or a model without images: one line back to the page, nothing sent.
    const prepared = await prepareClientImages(text, images, agent.cwd)
    const model = agent.model.model ?? this.harness.config.model.name
    const refusal = model === undefined ? undefined : visionRefusal(model, prepared.length)
    if (refusal) throw refusal
    if (agent.busy || hosted.running) throw new HttpError(409, 'a turn is running: wait for it or stop it')
    const controller = new AbortController()
    hosted.running = controller
    void agent
      .prompt(text, { signal: controller.signal, ...(prepared.length ? { images: prepared } : {}) })
      .catch((error: unknown) => this.send(id, { kind: 'error', message: errorMessage(error) }))
      .finally(() => {
        hosted.running = undefined
        this.send(id, { kind: 'state', state: this.state(id) })
      })
    this.send(id, { kind: 'state', state: this.state(id) })
  }

  /**
   * Compacts a session's context now (manual trigger, with the user's instructions for the
   * summary); hosts it first like a prompt does. Resolves when the boundary is appended;
   * refuses while a turn runs (409) and turns the context seam's refusals into one-line
   * API errors. Stop cancels it.
   */
  async compact(id: SessionId, instructions: string | undefined): Promise<CompactionResult> {
    const agent = await this.host(id)
    const hosted = this.hosted.get(id)!
    if (agent.busy || hosted.running) throw new HttpError(409, 'a turn is running: wait for it or stop it')
    const controller = new AbortController()
    hosted.running = controller
    hosted.compacting = true
    this.send(id, { kind: 'state', state: this.state(id) })
    try {
      return await agent.compact({
        ...(instructions !== undefined ? { instructions } : {}),
        signal: controller.signal,
      })
    } catch (error) {
      throw compactionRefusal(error)
    } finally {
      hosted.running = undefined
      hosted.compacting = false
      this.send(id, { kind: 'state', state: this.state(id) })
    }
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
    if (hosted.agent.busy || hosted.running) throw new HttpError(409, 'a turn is running: stop it first')
    hosted.detach()
    this.hosted.delete(id)
    await this.harness.agents.dispose(id)
    this.send(id, { kind: 'state', state: this.state(id) })
    this.channels.startTail(id, this.harness.ctx.get('sessionPersistence')!, hosted.agent.session.length)
  }

  /**
   * Renames a session (a `session/title` event): appended to the live log when hosted here,
   * else through the store (refused while another process writes the session).
   */
  async rename(id: SessionId, title: string): Promise<void> {
    const session = this.hosted.get(id)?.agent.session
    if (!session) return renameStored(this.harness.ctx.get('sessionPersistence')!, id, title)
    session.append('session/title', titleData(title), { ignorable: true })
    await this.harness.sessions.flush(session)
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
    for (const outcome of outcomes) if (outcome.kind === 'removed') this.channels.closeRemoved(outcome.id)
    return outcomes
  }

  /** The browser's answer to an approval; false when it is no longer waiting. */
  answer(approvalId: string, allowed: boolean): boolean {
    return this.questions.answerApproval(approvalId, allowed)
  }

  async dispose(): Promise<void> {
    this.stopTerminals()
    this.questions.cancelAll()
    for (const hosted of this.hosted.values()) {
      hosted.running?.abort()
      hosted.detach()
    }
    this.channels.closeAll()
    await this.questions.dispose()
  }

  private adopt(agent: AgentHandle): void {
    const id = agent.id
    this.channels.stopTail(id)
    const offAppend = agent.session.onAppend((_session, event) => {
      this.send(id, { kind: 'event', event })
      if (CONTEXT_CHANGES.has(event.type)) this.send(id, { kind: 'state', state: this.state(id) })
    })
    const offOutput = agent.onOutput((output) => this.send(id, { kind: 'output', output }))
    this.hosted.set(id, {
      agent,
      running: undefined,
      compacting: false,
      detach: () => {
        offAppend()
        offOutput()
      },
    })
    // Tabs already watching it (read-only until now) learn that it is open here.
    this.send(id, { kind: 'state', state: this.state(id) })
  }

  private send(id: SessionId, message: LiveMessage): void {
    this.channels.send(id, message)
  }
}

function contextFill(agent: AgentHandle): ContextFill | null {
  const usage = agent.contextUsage()
  return usage ? { tokens: usage.tokens, window: usage.window ?? null } : null
}

/** The context seam's refusals as API errors the page shows; anything else stays an internal error. */
function compactionRefusal(error: unknown): unknown {
  if (!(error instanceof DshError)) return error
  switch (error.code) {
    case ContextErrorCode.Blocked:
    case ContextErrorCode.NothingToCompact:
    case ContextErrorCode.Aborted:
      return new HttpError(409, error.message)
    case ContextErrorCode.SummaryFailed:
      return new HttpError(502, `${error.message} (the session is unchanged)`)
    default:
      return error
  }
}
