// A live agent: one session, an inbox of prompts run one turn at a time, and the
// cancellation of the running turn.

import type { Context } from 'cordis'
import type { CompactionResult, ContextUsage } from '../context/index.js'
import { ContextErrorCode } from '../context/index.js'
import { DshError } from '../core/errors.js'
import { hasListeners } from '../core/service-ref.js'
import type { ModelChoice } from '../llm/adapter.js'
import type { AgentHandle, AgentOutput, PromptOptions, TurnResult } from '../plugin-api/index.js'
import { deriveHistory } from '../session/history.js'
import type { Session } from '../session/session.js'
import type { SessionId } from '../session/types.js'
import { TurnCancellation } from './cancellation.js'
import { AgentErrorCode } from './errors.js'
import { refuseImagesWithoutVision } from './images.js'
import { buildModelRequest } from './request.js'
import type { LoopServices } from './services.js'
import { recordSettings } from './settings.js'
import { runTurn, type TurnSettings } from './turn-runner.js'

/** A signal that never aborts, for requests built only to be measured. */
const NEVER = new AbortController().signal

export class Agent implements AgentHandle {
  private inbox: Promise<unknown> = Promise.resolve()
  private running: TurnCancellation | undefined
  private readonly listeners = new Set<(output: AgentOutput) => void>()
  private closed = false

  constructor(
    private readonly ctx: Context,
    private readonly services: LoopServices,
    readonly session: Session,
    private readonly settings: TurnSettings,
  ) {}

  get id(): SessionId {
    return this.session.id
  }

  get cwd(): string {
    return this.session.header.cwd ?? process.cwd()
  }

  get model(): ModelChoice {
    return this.settings.model
  }

  setModel(choice: ModelChoice): void {
    this.settings.model = { ...this.settings.model, ...choice }
    recordSettings(this.ctx, this)
  }

  recordSettings(): void {
    recordSettings(this.ctx, this)
  }

  get busy(): boolean {
    return this.running !== undefined
  }

  prompt(text: string, options: PromptOptions = {}): Promise<TurnResult> {
    const turn = this.inbox.then(() => this.runOne(text, options))
    this.inbox = turn.catch(() => {
      // The caller of prompt() receives the failure; the inbox only keeps the order.
    })
    return turn
  }

  cancel(): void {
    this.running?.cancel()
  }

  compact(options: { instructions?: string; signal?: AbortSignal } = {}): Promise<CompactionResult> {
    const job = this.inbox.then(() => this.compactNow(options))
    this.inbox = job.catch(() => {
      // The caller of compact() receives the failure; the inbox only keeps the order.
    })
    return job
  }

  contextUsage(): ContextUsage | undefined {
    return this.services
      .context()
      ?.usage(this.session, buildModelRequest(this.session, this.settings.model, NEVER))
  }

  onOutput(listener: (output: AgentOutput) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Refuses new prompts, cancels the running turn and waits until the inbox is empty. */
  async close(): Promise<void> {
    this.closed = true
    this.cancel()
    await this.inbox
  }

  private async runOne(text: string, options: PromptOptions): Promise<TurnResult> {
    if (this.closed)
      throw new DshError(`agent ${JSON.stringify(this.id)} is disposed`, AgentErrorCode.Disposed)
    const cancellation = new TurnCancellation(options.signal)
    this.running = cancellation
    try {
      // A refused prompt logs nothing, not even the settings it would have run with.
      refuseImagesWithoutVision(this.services, this.settings, options.images?.length ?? 0)
      // Before `turn/start`: a resume or fork of this log gets what this turn ran with.
      recordSettings(this.ctx, this)
      const result = await runTurn({
        ctx: this.ctx,
        services: this.services,
        agent: this,
        settings: this.settings,
        prompt: text,
        origin: options.origin ?? 'user',
        ...(options.images?.length ? { images: options.images } : {}),
        signal: cancellation.signal,
        emit: (output) => this.emit(output),
      })
      if (hasListeners(this.ctx, 'agent/turn-ended')) this.ctx.emit('agent/turn-ended', this, result)
      return result
    } finally {
      cancellation.release()
      this.running = undefined
    }
  }

  private async compactNow(options: {
    instructions?: string
    signal?: AbortSignal
  }): Promise<CompactionResult> {
    if (this.closed)
      throw new DshError(`agent ${JSON.stringify(this.id)} is disposed`, AgentErrorCode.Disposed)
    const context = this.services.context()
    if (!context) throw new DshError('context management is not loaded', ContextErrorCode.NothingToCompact)
    if (deriveHistory(this.session.events).length === 0) {
      throw new DshError('there is nothing to compact yet', ContextErrorCode.NothingToCompact, {
        userFacing: true,
      })
    }
    const cancellation = new TurnCancellation(options.signal)
    this.running = cancellation
    const signal = cancellation.signal
    try {
      return await context.compact(this.session, {
        trigger: 'manual',
        ...(options.instructions?.trim() ? { instructions: options.instructions.trim() } : {}),
        signal,
        rebuild: () => buildModelRequest(this.session, this.settings.model, signal),
        onCompaction: (notice) => this.emit({ type: 'compaction', ...notice }),
      })
    } finally {
      cancellation.release()
      this.running = undefined
    }
  }

  private emit(output: AgentOutput): void {
    for (const listener of this.listeners) {
      try {
        listener(output)
      } catch {
        // A failing front-end listener must not break the turn.
      }
    }
  }
}
