// The agent registry service (`ctx.agents`): creates and resumes agents in one
// transaction each, under the one id they share with their session.

import { randomUUID } from 'node:crypto'
import { type Context, Service } from 'cordis'
import { DshError, errorMessage } from '../core/errors.js'
import type { ModelChoice } from '../llm/adapter.js'
import type {
  AgentHandle,
  CreateAgentOptions,
  ForkAgentOptions,
  ResumeAgentOptions,
  SystemPromptState,
} from '../plugin-api/index.js'
import type { Session } from '../session/session.js'
import { recordedSettings, sameSettings, sessionSettings, turnEndBoundary } from '../session/settings.js'
import { forkSeed, type SessionStore } from '../session/store.js'
import type { SessionEvent, SessionId } from '../session/types.js'
import { Agent } from './agent.js'
import { AgentErrorCode } from './errors.js'
import { defaultSystemPrompt } from './prompts/system-prompt.js'
import { createLoopServices } from './services.js'
import type { TurnSettings } from './turn-runner.js'

export interface AgentRegistryConfig {
  /** Replaces the default system prompt. */
  systemPrompt?: string
  /** Model steps one turn may take before it ends `max-steps`. Default DEFAULT_MAX_STEPS_PER_TURN. */
  maxStepsPerTurn?: number
  /** Forced continuations (Stop hooks) one turn may take. Default 3. */
  maxStopContinuations?: number
  /** The model used when an agent names none. */
  model?: ModelChoice
}

/**
 * A backstop against a runaway turn, not a budget: real work never meets it. Claude Code and
 * Codex set no step limit; with compaction a turn no longer dies of its own length, the
 * repeat guard ends a model stuck in one call, and `--max-turns`, `--max-cost` and Ctrl-C
 * are the user's own limits.
 */
export const DEFAULT_MAX_STEPS_PER_TURN = 10_000
/** A backstop only: hook bridges end their own Stop loops first (Claude Code's cap is 8, configurable). */
export const DEFAULT_MAX_STOP_CONTINUATIONS = 50

export class AgentRegistry extends Service {
  private readonly agents = new Map<SessionId, Agent>()
  /** Ids inside a creation or disposal transaction. */
  private readonly reserved = new Set<SessionId>()
  /** Builds an agent on the registry's own context (not a caller's, which may unload first). */
  private readonly spawn: (session: Session, settings: TurnSettings) => Agent

  constructor(
    ctx: Context,
    private readonly config: AgentRegistryConfig = {},
  ) {
    super(ctx, 'agents')
    const services = createLoopServices(ctx)
    this.spawn = (session, settings) => new Agent(ctx, services, session, settings)
    ctx.effect(
      () => async () => {
        await Promise.allSettled([...this.agents.keys()].map((id) => this.dispose(id)))
      },
      'agents: dispose on unload',
    )
  }

  /** Creates a fresh agent and its session under `sessionId`. */
  async create(options: CreateAgentOptions): Promise<AgentHandle> {
    if ('resumeSessionId' in options) {
      throw new DshError('sessionId and resumeSessionId are mutually exclusive', AgentErrorCode.BadOptions, {
        userFacing: true,
      })
    }
    return this.transaction(options.sessionId, options.signal, 'new', options.model, (sessions) =>
      sessions.create({
        id: options.sessionId,
        ...options.meta,
        ...(options.seed ? { seed: options.seed } : {}),
      }),
    )
  }

  /** Resumes a stored session with the same id, header and location. */
  async resume(options: ResumeAgentOptions): Promise<AgentHandle> {
    if ('sessionId' in options) {
      throw new DshError('sessionId and resumeSessionId are mutually exclusive', AgentErrorCode.BadOptions, {
        userFacing: true,
      })
    }
    return this.transaction(options.resumeSessionId, options.signal, 'resume', options.model, (sessions) =>
      sessions.open(options.resumeSessionId),
    )
  }

  /**
   * Creates an agent on a fork of a live or stored session: a new id (and so a new
   * location), seeded with the source's completed turns, with `parentSession` lineage and
   * the source's cwd. A stored source is only read (never repaired or locked).
   */
  async fork(options: ForkAgentOptions): Promise<AgentHandle> {
    const source = await this.sessions().read(options.sourceSessionId)
    const boundary =
      options.atTurn !== undefined ? turnEndBoundary(source.events, options.atTurn) : options.boundary
    const seed: SessionEvent[] = forkSeed(source, boundary)
    // The fork restores the source's settings as they are now, also when they changed after the cut.
    const settings = sessionSettings(source)
    if (seed.length > 0 && !sameSettings(recordedSettings(seed), settings)) {
      seed.push({ seq: seed.length, type: 'session/settings', time: Date.now(), data: settings })
    }
    const { header } = source
    return this.create({
      sessionId: options.sessionId ?? randomUUID(),
      meta: {
        ...(header.cwd !== undefined ? { cwd: header.cwd } : {}),
        parentSession: header.id,
        delegationDepth: header.delegationDepth,
      },
      ...(seed.length > 0 ? { seed } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    })
  }

  get(id: SessionId): AgentHandle | undefined {
    return this.agents.get(id)
  }

  list(): AgentHandle[] {
    return [...this.agents.values()]
  }

  /** Cancels the agent's turn, waits for it, publishes `agent/disposed`, closes the session. */
  async dispose(id: SessionId): Promise<void> {
    const agent = this.agents.get(id)
    if (!agent || this.reserved.has(id)) return
    this.reserved.add(id)
    try {
      await agent.close()
      await this.publishSafely('agent/disposed', agent)
      await this.sessions().close(agent.session)
    } finally {
      this.agents.delete(id)
      this.reserved.delete(id)
    }
  }

  private async transaction(
    id: SessionId,
    signal: AbortSignal | undefined,
    source: 'new' | 'resume',
    model: ModelChoice | undefined,
    prepare: (sessions: SessionStore) => Promise<Session>,
  ): Promise<AgentHandle> {
    if (this.agents.has(id) || this.reserved.has(id)) {
      throw new DshError(
        `an agent with id ${JSON.stringify(id)} is already live`,
        AgentErrorCode.AlreadyLive,
        {
          userFacing: true,
        },
      )
    }
    this.reserved.add(id)
    const sessions = this.sessions()
    let session: Session | undefined
    try {
      checkSignal(signal)
      session = await prepare(sessions)
      await this.ctx.serial('agent/preparing', { cwd: session.header.cwd ?? process.cwd(), sessionId: id })
      checkSignal(signal)
      const agent = this.spawn(session, this.turnSettings(session, model))
      if (agent.id !== id) {
        throw new DshError(`agent id ${agent.id} does not match session id ${id}`, AgentErrorCode.IdMismatch)
      }
      checkSignal(signal)
      await this.ctx.serial('agent/setup', agent)
      checkSignal(signal)
      this.agents.set(id, agent)
      this.reserved.delete(id)
      this.ctx.emit('session/created', session)
      await this.publishSafely('agent/created', agent, { source })
      return agent
    } catch (error) {
      this.reserved.delete(id)
      if (session && !this.agents.has(id)) await sessions.discard(session)
      throw error
    }
  }

  private turnSettings(session: Session, model: ModelChoice | undefined): TurnSettings {
    const cwd = session.header.cwd ?? process.cwd()
    const base =
      this.config.systemPrompt ??
      defaultSystemPrompt({
        cwd,
        platform: `${process.platform} ${process.arch}`,
        // The session's start, not today: the system prompt stays byte-stable for its whole
        // life (resumed on another day too), so the server's prefix cache keeps hitting.
        date: new Date(session.header.createdAt).toISOString().slice(0, 10),
      })
    const state: SystemPromptState = { cwd, sessionId: session.id, sections: [] }
    this.ctx.emit('agent/system-prompt', state)
    return {
      systemPrompt: [base, ...state.sections].join('\n\n'),
      // Config defaults, then what the log recorded (a resume or fork), then the caller's flags.
      model: { ...this.config.model, ...restoredChoice(session), ...model },
      maxStepsPerTurn: this.config.maxStepsPerTurn ?? DEFAULT_MAX_STEPS_PER_TURN,
      maxStopContinuations: this.config.maxStopContinuations ?? DEFAULT_MAX_STOP_CONTINUATIONS,
    }
  }

  private sessions(): SessionStore {
    const sessions = this.ctx.get('sessions')
    if (!sessions) throw new DshError('the session store is not loaded', AgentErrorCode.NotFound)
    return sessions
  }

  /** Publication listeners (hooks) run to completion; their failures never undo a published agent. */
  private async publishSafely<K extends 'agent/created' | 'agent/disposed'>(
    name: K,
    ...args: Parameters<import('cordis').Events[K]>
  ): Promise<void> {
    try {
      await (this.ctx.serial as (name: string, ...args: unknown[]) => Promise<unknown>)(name, ...args)
    } catch (error) {
      this.ctx.logger('agents').warn('%s listener failed: %s', name, errorMessage(error))
    }
  }
}

/** The model and effort a resumed or forked session recorded (nothing for a new one). */
function restoredChoice(session: Session): ModelChoice {
  const { model, effort } = sessionSettings(session)
  return { ...(model !== undefined ? { model } : {}), ...(effort !== undefined ? { effort } : {}) }
}

function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DshError('agent creation was aborted', AgentErrorCode.Aborted)
}
