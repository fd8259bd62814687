// A live agent: one session, an inbox of prompts run one turn at a time, and the
// cancellation of the running turn.

import type { Context } from 'cordis'
import { DshError } from '../core/errors.js'
import type { ModelChoice } from '../llm/adapter.js'
import type { Session } from '../session/session.js'
import type { SessionId } from '../session/types.js'
import { TurnCancellation } from './cancellation.js'
import { AgentErrorCode } from './errors.js'
import type { LoopServices } from './services.js'
import { runTurn, type TurnSettings } from './turn-runner.js'
import type { AgentHandle, AgentOutput, PromptOptions, TurnResult } from './types.js'

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
      return await runTurn({
        ctx: this.ctx,
        services: this.services,
        agent: this,
        settings: this.settings,
        prompt: text,
        origin: options.origin ?? 'user',
        signal: cancellation.signal,
        emit: (output) => this.emit(output),
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
