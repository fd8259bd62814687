// The `dsh acp` agent: serves the Agent Client Protocol over one connection. Each ACP
// session is one dsh agent whose session id IS the ACP sessionId.

import {
  type AgentConnection,
  type AgentContext,
  agent as agentApp,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  type PromptRequest,
  type PromptResponse,
  RequestError,
  type SessionModeState,
  type SessionUpdate,
  type SetSessionModeRequest,
  type SetSessionModeResponse,
} from '@agentclientprotocol/sdk'
import type { Fiber } from 'cordis'
import { mintSessionId } from '../../agent/configured.js'
import { prepareClientImages } from '../../attachments/index.js'
import { formatCompactionLine } from '../../context/index.js'
import { DshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import type { AgentHandle, ToolCallInfo } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'
import { resolvePriceTable, usageReport } from '../../usage/index.js'
import {
  assertDirectory,
  guard,
  resolveLoadedId,
  resumeForLoad,
  useMcpServers,
  watchSessionServers,
} from './checks.js'
import { availableCommandsUpdate, parseCompactCommand } from './commands.js'
import { AcpErrorCode } from './errors.js'
import { planUpdate } from './file-updates.js'
import { initializeResponse } from './initialize.js'
import { ACP_MAX_MESSAGE_BYTES } from './message-limit.js'
import { acpModePlugin, modeUpdate, parseModeId, sessionModeState } from './modes.js'
import { acpPermissionPlugin, decidePermission, permissionRequest } from './permission.js'
import { promptImages, promptText } from './prompt-text.js'
import { toStopReason } from './stop-reason.js'
import { nodeNdJsonStream } from './streams.js'
import { AcpTrust, agentMessage } from './trust.js'
import type { RunningPrompt, ServedSession } from './types.js'
import {
  outputUpdate,
  parseArguments,
  replayImages,
  replayUpdates,
  toolCallRunning,
  usageUpdate,
} from './updates.js'

export interface AcpServerOptions {
  harness: Harness
  input: NodeJS.ReadableStream
  /** Receives ACP messages only, one JSON object per line. */
  output: NodeJS.WritableStream
  /** The largest incoming message; a larger one is refused (streams.ts). Default ACP_MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number
}

/** The label of agents this server mints ids for: `acp-session-<uuid>`. */
export const ACP_AGENT_LABEL = 'acp'

export class AcpServer {
  private readonly sessions = new Map<SessionId, ServedSession>()
  private connection: AgentConnection | undefined
  /** This connection's listeners on the harness (approvals, mode changes); unloaded when it ends. */
  private fibers: Fiber[] = []
  /** Updates are sent one after another, so they reach the client in order and before the answer. */
  private updates: Promise<void> = Promise.resolve()
  private readonly trust = new AcpTrust(() => this.client())
  /** Updates for sessions being set up, sent once the client has the session/new (load) answer. */
  private readonly held = new Map<SessionId, SessionUpdate[]>()

  constructor(private readonly options: AcpServerOptions) {}

  /** Serves until the input ends; every agent of this connection is then disposed (flushed). */
  async run(): Promise<void> {
    const { harness } = this.options
    const owns = (id: SessionId) => this.sessions.has(id)
    this.fibers = [
      harness.ctx.plugin(
        acpPermissionPlugin({
          owns,
          ask: (call, reason) => this.askPermission(call, reason),
          running: (call) => this.tell(call.agent.id, toolCallRunning(call.turn, call.callId)),
        }),
      ),
      harness.ctx.plugin(
        acpModePlugin({ owns, changed: (agent, mode) => this.tell(agent.id, modeUpdate(mode)) }),
      ),
      harness.ctx.plugin({
        name: 'acp-trust-and-notices',
        apply: (ctx) => {
          ctx.get('projectTrust')?.askWith(this.trust.ask)
          // Hook `systemMessage`s and the like reach the editor as agent messages.
          ctx.on('hooks/notice', (sessionId, message) =>
            this.tell(sessionId, agentMessage(message, { hookNotice: true })),
          )
        },
      }),
    ]
    await Promise.all(this.fibers.map((fiber) => fiber.await()))
    const app = agentApp({ name: 'dsh' })
      .onRequest('initialize', () => initializeResponse())
      .onRequest('session/new', ({ params }) => guard(() => this.newSession(params)))
      .onRequest('session/load', ({ params }) => guard(() => this.loadSession(params)))
      .onRequest('session/prompt', ({ params }) => guard(() => this.prompt(params)))
      .onRequest('session/set_mode', ({ params }) => guard(() => this.setMode(params)))
      .onNotification('session/cancel', ({ params }) => this.cancel(params.sessionId))
    const limit = {
      maxBytes: this.options.maxMessageBytes ?? ACP_MAX_MESSAGE_BYTES,
      warn: (line: string) => harness.ctx.logger('acp').warn('%s', line),
    }
    this.connection = app.connect(nodeNdJsonStream(this.options.input, this.options.output, limit))
    try {
      await this.connection.closed
    } finally {
      await Promise.allSettled(
        [...new Set([...this.sessions.values()].map((served) => served.agent.id))].map((id) =>
          harness.agents.dispose(id),
        ),
      )
      this.sessions.clear()
      await Promise.all(this.fibers.map((fiber) => fiber.dispose()))
    }
  }

  /** The client's `mcpServers` belong to this session (and its sub-agents) and stop with it. */
  private async newSession(params: NewSessionRequest): Promise<NewSessionResponse> {
    await assertDirectory(params.cwd)
    const sessionId = mintSessionId(ACP_AGENT_LABEL)
    this.held.set(sessionId, [])
    try {
      await useMcpServers(this.options.harness, sessionId, params)
      // Before the agent is built: hooks, MCP, rules and skills all read this one decision.
      const trusted = await this.trust.decide(this.options.harness.ctx, sessionId, params.cwd)
      const agent = await this.options.harness.agents.create({ sessionId, meta: { cwd: params.cwd } })
      this.sessions.set(agent.id, { agent, name: sessionId, remembered: new Map() })
      if (trusted) this.tell(sessionId, trusted)
    } catch (error) {
      this.held.delete(sessionId)
      throw error
    } finally {
      this.trust.done(sessionId)
    }
    // After the answer, so the client knows the session the updates belong to.
    setTimeout(() => this.release(sessionId), 0)
    const agent = this.sessions.get(sessionId)!.agent
    return { sessionId, ...this.modes(agent) }
  }

  /**
   * Resumes a stored session under the same id and replays its history before answering.
   * The stored header keeps its cwd; the request's cwd is only checked to be a directory.
   */
  private async loadSession(params: LoadSessionRequest): Promise<LoadSessionResponse> {
    await assertDirectory(params.cwd)
    // A unique prefix of 6+ characters names the session too (the one id resolver): the client
    // keeps using what it sent, so the session is served under that name as well.
    const named = params.sessionId
    const full = await resolveLoadedId(this.options.harness, named)
    params = { ...params, sessionId: full }
    let served = this.sessions.get(params.sessionId)
    await useMcpServers(this.options.harness, params.sessionId, params)
    let trusted: SessionUpdate | undefined
    if (!served) {
      // The client named this session: the trust question may be asked in it right away.
      trusted = await this.trust.decide(this.options.harness.ctx, named, params.cwd)
      const agent = await resumeForLoad(this.options.harness, full, params.cwd).finally(() =>
        this.trust.done(named),
      )
      served = { agent, name: named, remembered: new Map() }
      this.sessions.set(agent.id, served)
    }
    served.name = named
    if (named !== full) this.sessions.set(named, served)
    const { events } = served.agent.session
    const images = await replayImages(events, (sha) => this.options.harness.sessions.getImage(full, sha))
    for (const update of replayUpdates(events, served.agent.cwd, images)) this.send(named, update)
    if (trusted) this.send(named, trusted)
    this.send(named, availableCommandsUpdate())
    await this.updates
    setTimeout(() => this.watchMcpServers(named), 0)
    return this.modes(served.agent)
  }

  /** The session's permission mode as ACP modes (absent when no permission policy is loaded). */
  private modes(agent: AgentHandle): { modes?: SessionModeState } {
    const policy = this.options.harness.ctx.get('permissions')
    return policy ? { modes: sessionModeState(policy.modeOf(agent)) } : {}
  }

  /** Takes effect at the next tool call, also mid-turn; the client hears `current_mode_update`. */
  private async setMode(params: SetSessionModeRequest): Promise<SetSessionModeResponse> {
    const served = this.require(params.sessionId)
    const mode = parseModeId(params.modeId)
    const policy = this.options.harness.ctx.get('permissions')
    if (!policy) throw new DshError('no permission policy is loaded', AcpErrorCode.NoModes)
    policy.setMode(served.agent, mode)
    await this.updates
    return {}
  }

  /**
   * Runs one turn. A second prompt while one runs is refused (ACP_TURN_RUNNING). A turn that
   * ends `error` is answered with a JSON-RPC error (ACP_TURN_FAILED): ACP has no stop reason
   * for a failure, and `end_turn` would hide it.
   */
  private async prompt(params: PromptRequest): Promise<PromptResponse> {
    const served = this.require(params.sessionId)
    if (served.running) {
      throw new DshError('a prompt is already running in this session', AcpErrorCode.TurnRunning)
    }
    const text = promptText(params.prompt)
    const running: RunningPrompt = { turn: 0, cancelled: false, controller: new AbortController() }
    const command = parseCompactCommand(text)
    if (command) return this.compact(served, params.sessionId, command.instructions, running)
    served.running = running
    const stop = served.agent.onOutput((output) => {
      if (output.type === 'turn-start') running.turn = output.turn
      const update = outputUpdate(running.turn, output, served.agent.cwd)
      if (update) this.send(params.sessionId, update)
      // A todo_write snapshot is also the session's plan.
      const plan =
        output.type === 'tool-start' ? planUpdate(output.name, parseArguments(output.arguments)) : undefined
      if (plan) this.send(params.sessionId, plan)
    })
    try {
      // Image blocks and `@` mentions go through the attachment path; a bad one fails the prompt.
      const images = await prepareClientImages(text, promptImages(params.prompt), served.agent.cwd)
      const { signal } = running.controller
      const result = await served.agent.prompt(text, { signal, ...(images.length > 0 ? { images } : {}) })
      const report = usageReport(
        served.agent.session.events,
        result.turn,
        resolvePriceTable(this.options.harness.config.pricing),
      )
      const window = served.agent.contextUsage()?.window
      this.send(params.sessionId, usageUpdate(served.agent.session.events, report, window))
      await this.updates
      const meta = {
        dsh: {
          turn: result.turn,
          reason: result.reason,
          ...(result.error ? { error: result.error } : {}),
          usage: report.usage,
          sessionUsage: report.sessionUsage,
          currency: report.currency,
        },
      }
      if (running.cancelled && result.reason !== 'completed') return { stopReason: 'cancelled', _meta: meta }
      // A hook blocked the prompt (or stopped the agent): the user sees why, not only `_meta`.
      if (result.reason === 'blocked') {
        this.send(params.sessionId, agentMessage(`Blocked by a hook: ${result.error ?? 'no reason given'}`))
        await this.updates
      }
      if (result.reason === 'error') {
        throw new RequestError(-32000, `the turn failed: ${result.error ?? 'unknown error'}`, {
          code: AcpErrorCode.TurnFailed,
          ...meta.dsh,
        })
      }
      return { stopReason: toStopReason(result.reason), _meta: meta }
    } finally {
      stop()
      served.running = undefined
    }
  }

  /**
   * The `compact` command: compacts the context now (session/cancel cancels it and leaves the
   * session as it was). The client hears the progress as thoughts, the result as the answer.
   */
  private async compact(
    served: ServedSession,
    sessionId: SessionId,
    instructions: string,
    running: RunningPrompt,
  ): Promise<PromptResponse> {
    served.running = running
    const stop = served.agent.onOutput((output) => {
      const update = outputUpdate(running.turn, output, served.agent.cwd)
      if (update) this.send(sessionId, update)
    })
    try {
      const { signal } = running.controller
      const result = await served.agent.compact({ signal, ...(instructions !== '' ? { instructions } : {}) })
      this.send(sessionId, {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: formatCompactionLine(result) },
      })
      const window = served.agent.contextUsage()?.window
      if (window !== undefined)
        this.send(sessionId, { sessionUpdate: 'usage_update', used: result.tokensAfter, size: window })
      await this.updates
      return { stopReason: 'end_turn', _meta: { dsh: { compaction: result } } }
    } catch (error) {
      await this.updates
      if (running.cancelled) return { stopReason: 'cancelled' }
      throw error
    } finally {
      stop()
      served.running = undefined
    }
  }

  private cancel(sessionId: SessionId): void {
    const served = this.sessions.get(sessionId)
    if (!served) return
    if (served.running) {
      served.running.cancelled = true
      served.running.controller.abort()
    }
    // Aborts the turn signal, which also stops waiting for a pending permission answer.
    served.agent.cancel()
  }

  private async askPermission(call: ToolCallInfo, reason: string): Promise<boolean> {
    const served = this.sessions.get(call.agent.id)
    const client = this.client()
    if (!served || !client) return false
    const remembered = served.remembered.get(call.name)
    if (remembered !== undefined) return remembered
    await this.updates
    try {
      const request = permissionRequest(served.name, call, reason)
      const response = await client.request('session/request_permission', request, {
        cancellationSignal: call.signal,
        stopWaitingOnCancel: true,
      })
      return decidePermission(response, (allow) => served.remembered.set(call.name, allow))
    } catch {
      // Cancelled, or the connection closed: no answer denies.
      return false
    }
  }

  /** Sends now to a served session (under its client's name), later to one being set up, nowhere otherwise. */
  private tell(sessionId: SessionId, update: SessionUpdate): void {
    const held = this.held.get(sessionId)
    const served = this.sessions.get(sessionId)
    if (held) held.push(update)
    else if (served) this.send(served.name, update)
  }

  /** The client has the session: what was held for it goes out, then the commands, then MCP start reports. */
  private release(sessionId: SessionId): void {
    const held = this.held.get(sessionId) ?? []
    this.held.delete(sessionId)
    for (const update of held) this.send(sessionId, update)
    this.send(sessionId, availableCommandsUpdate())
    this.watchMcpServers(sessionId)
  }

  /** The client's MCP servers start now; one that fails is told to the user (stderr is invisible in an editor). */
  private watchMcpServers(sessionId: SessionId): void {
    const agent = this.sessions.get(sessionId)?.agent
    if (!agent) return
    // A failure here (a trust question nobody can answer now) only means no report.
    watchSessionServers(this.options.harness, agent, (update) => this.tell(sessionId, update)).catch(() => {})
  }

  private send(sessionId: SessionId, update: SessionUpdate): void {
    const client = this.client()
    if (!client) return
    this.updates = this.updates.then(() =>
      client.notify('session/update', { sessionId, update }).catch(() => {
        // The connection closed: the update has nobody to go to.
      }),
    )
  }

  private client(): AgentContext | undefined {
    return this.connection?.client
  }

  private require(sessionId: SessionId): ServedSession {
    const served = this.sessions.get(sessionId)
    if (!served) throw RequestError.sessionNotFound(sessionId)
    return served
  }
}
